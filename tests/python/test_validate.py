"""`aqmlab validate ns2` without ns-2: the Tcl arguments, parsing of a captured ns-2 output,
the tolerance and seed-spread verdicts, resumable storage, and the one-line error when `ns`
is missing."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aqmlab.engine.store import RunStore
from aqmlab.validate import common as validate
from aqmlab.validate.ns2 import suite as validate_ns2
from conftest import REPO_ROOT, assert_usage_error

SAMPLE = Path(__file__).resolve().parent / "data" / "ns2_li2014_sample.txt"


def test_script_and_scenario_exist():
    validate_ns2.check_files()
    text = validate_ns2.SCRIPT.read_text()
    keys = ("queue", "flows", "capacity_mbps", "min_th", "max_th", "seed", "duration_s", "tcp")
    for key in keys:
        assert f"    {key} " in text  # every argument the harness passes has a default


def test_ns2_arguments():
    case = validate_ns2.Case("ared", 500, 45.0, 50, 100.0)
    args = validate_ns2.ns2_args(case, 2)
    assert args == [
        "queue=ared",
        "flows=500",
        "capacity_mbps=45",
        "min_th=25",
        "max_th=75",
        "duration_s=100",
        "window_start_s=50",
        "sample_ms=10",
        "start_jitter_s=1",
        "tcp=reno",
        "seed=2",
    ]
    cmd = validate_ns2.ns2_command("/usr/bin/ns", case, 2)
    assert cmd[:2] == ["/usr/bin/ns", str(validate_ns2.SCRIPT)]


def test_tcp_variants_run_the_same_agent_on_both_sides():
    """ns-2's Newreno and Sack1 agents face the `ns2` preset set the same way; the Tcl script
    knows every agent the harness names."""
    text = validate_ns2.SCRIPT.read_text()
    for tcp, agent in validate_ns2.TCP_AGENTS.items():
        assert f"{tcp} Agent/TCP/{agent}" in text
    sack1 = validate_ns2.Case("red", 500, tcp="sack1")
    assert "tcp=sack1" in validate_ns2.ns2_args(sack1, 1)
    sets = dict(validate_ns2.aqmlab_overrides(sack1))
    assert sets["tcp.sack"] == "true" and sets["tcp.recovery"] == "sack1"
    newreno = validate_ns2.Case("red", 500, tcp="newreno")
    assert dict(validate_ns2.aqmlab_overrides(newreno))["tcp.recovery"] == "newreno"
    reno = validate_ns2.Case("red", 500)
    assert "tcp.recovery" not in dict(validate_ns2.aqmlab_overrides(reno))
    assert sack1.case_id == reno.case_id + "-sack1"
    assert sack1.label.endswith("(100 s, Sack1)")


def test_aqmlab_overrides_match_the_ns2_case():
    case = validate_ns2.Case("red", 800, 115.0, 300, 100.0)
    sets = dict(validate_ns2.aqmlab_overrides(case))
    assert sets["queue.aqm"] == "red"
    assert sets["traffic.schedule.flows"] == "800"
    assert sets["topology.bottleneck_rate_mbps"] == "115"
    assert sets["queue.red.q_min_pkts"] == "15" and sets["queue.ared.q_max_pkts"] == "585"
    assert sets["measure.window"] == "second_half"


def _li(cases):
    return [c for c in cases if c.family == "li2014"]


def test_grids():
    quick = validate_ns2.grid(True)
    assert {c.aqm for c in _li(quick.cases)} == {"droptail", "red", "ared"}
    assert {c.flows for c in _li(quick.cases)} == {100} and quick.seeds == (1, 2)
    assert {c.tcp for c in _li(quick.cases)} == {"reno", "newreno", "sack1"}
    full = validate_ns2.grid(False)
    assert {c.flows for c in _li(full.cases)} == {100, 500, 800}
    assert {c.capacity_mbps for c in _li(full.cases)} == {15.0, 45.0, 115.0}
    assert {c.target_pkts for c in _li(full.cases)} == {50, 300}
    assert {c.target_pkts for c in _li(full.cases) if c.aqm == "droptail"} == {300}
    variants = [c for c in _li(full.cases) if c.tcp != "reno"]
    assert {(c.aqm, c.flows, c.tcp) for c in variants} == {
        (a, 500, v) for a in ("droptail", "red", "ared") for v in ("newreno", "sack1")
    }
    assert len({c.case_id for c in full.cases}) == len(full.cases)
    with pytest.raises(ValueError, match="target_pkts"):
        _ = validate_ns2.Case("red", 10, target_pkts=100).thresholds


def test_parse_captured_ns2_output():
    out = validate_ns2.parse_ns2_output(SAMPLE.read_text())
    assert set(validate_ns2.METRICS) <= set(out)
    assert out["samples"] == 200
    assert out["drop_rate"] == pytest.approx(out["drops"] / out["arrivals"])
    assert 0.5 < out["link_efficiency"] < 1.01
    assert out["delay_mean_ms"] == pytest.approx(
        40.0 + 0.2015 + out["queue_delay_mean_ms"], abs=0.01
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("warning: something\n", "no begin/end"),
        ("begin\navg_queue_pkts 3\nend\n", "lacks"),
        (SAMPLE.read_text().replace("drop_rate 0", "drop_rate x0"), "not a number"),
    ],
)
def test_parse_rejects_bad_output(text, message):
    with pytest.raises(ValueError, match=message):
        validate_ns2.parse_ns2_output(text)


def test_tolerances_and_spread():
    # 5 % on link efficiency
    assert validate.judge("link_efficiency", [0.95, 0.95], [0.97]).verdict == "within"
    assert validate.judge("link_efficiency", [0.90, 0.90], [0.99]).verdict == "outside"
    # average queue: 25 % or 30 packets
    assert validate.judge("avg_queue_pkts", [40.0, 40.0], [65.0]).verdict == "within"
    assert validate.judge("avg_queue_pkts", [300.0, 300.0], [380.0]).verdict == "outside"
    # drop rate: 25 % relative or 0.01 absolute
    assert validate.judge("drop_rate", [0.002, 0.002], [0.011]).verdict == "within"
    assert validate.judge("drop_rate", [0.10, 0.10], [0.13]).verdict == "outside"
    # outside the tolerance but inside ns-2's own range over seeds
    c = validate.judge("std_queue_pkts", [10.0, 30.0], [35.0])
    assert c.ref == 20.0 and c.ref_spread == 20.0 and c.aqmlab == 35.0
    assert c.verdict == "within spread"
    assert c.rel_diff == pytest.approx(0.75)
    assert validate.judge("delay_mean_ms", [], [1.0]).verdict == "n/a"
    assert math.isnan(validate.judge("delay_mean_ms", [0.0], [1.0]).rel_diff)


FAKE_NS2 = validate_ns2.parse_ns2_output(SAMPLE.read_text())


def _fake_ns2(ns, case, seed, timeout_s):
    return {"summary": dict(FAKE_NS2), "wall_s": 0.0, "command": []}


def test_store_is_resumable(tmp_path, monkeypatch):
    g = validate_ns2.Grid((validate_ns2.Case("red", 5, duration_s=2.0),), (1, 2), 10.0)
    monkeypatch.setattr(validate_ns2, "run_ns2", _fake_ns2)
    first = validate_ns2.execute(tmp_path, g, 2, "ns")
    assert (first.total, first.skipped, first.ran, first.failed) == (4, 0, 4, [])
    store = RunStore(tmp_path)
    assert len(store.ids()) == 4
    record = store.read(validate_ns2.run_id(g.cases[0], 1, "aqmlab"))
    assert record["side"] == "aqmlab" and record["case"]["flows"] == 5
    assert record["summary"]["samples"] == 100  # 10 ms samples over [1, 2) s

    def fail(*_args, **_kwargs):
        raise AssertionError("a stored run ran again")

    monkeypatch.setattr(validate_ns2, "run_ns2", fail)
    monkeypatch.setattr(validate_ns2, "run_aqmlab", fail)
    again = validate_ns2.execute(tmp_path, g, 2, "ns")
    assert (again.skipped, again.ran) == (4, 0)

    store.record_path(validate_ns2.run_id(g.cases[0], 2, "ns2")).unlink()
    monkeypatch.setattr(validate_ns2, "run_ns2", _fake_ns2)
    third = validate_ns2.execute(tmp_path, g, 1, "ns")
    assert (third.skipped, third.ran) == (3, 1)

    page_path, table = validate_ns2.write_outputs(tmp_path, g, quick=True)
    again = validate_ns2.write_outputs(tmp_path, g, quick=True)[0]
    assert page_path.read_text() == again.read_text()
    assert table.count("\n") == 2 and "red N=5" in table
    assert (tmp_path / validate_ns2.TABLE).read_text().count("\n") == 1 + len(validate_ns2.METRICS)


def test_failed_ns2_run_is_reported_not_stored(tmp_path, monkeypatch):
    g = validate_ns2.Grid((validate_ns2.Case("droptail", 5, duration_s=2.0),), (1,), 10.0)

    def broken(ns, case, seed, timeout_s):
        raise validate_ns2.ValidationError("ns-2 exited with status 1: boom")

    monkeypatch.setattr(validate_ns2, "run_ns2", broken)
    outcome = validate_ns2.execute(tmp_path, g, 1, "ns")
    assert outcome.ran == 1 and len(outcome.failed) == 1
    assert "boom" in outcome.failed[0][1]
    assert RunStore(tmp_path).ids() == {validate_ns2.run_id(g.cases[0], 1, "aqmlab")}


def test_missing_ns_is_one_line_exit_2(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "aqmlab.cli",
            "validate",
            "ns2",
            "--quick",
            "--out",
            str(tmp_path / "o"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert_usage_error(proc, "ns-2 not found", "apt-get install ns2")
    assert not (tmp_path / "o").exists()
