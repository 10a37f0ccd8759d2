"""Scenario loading, overrides and validation against the real core."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aqmlab
from aqmlab import Scenario, ScenarioError
from aqmlab.engine.scenario import toml_literal
from conftest import REPO_ROOT as REPO_ROOT_DIR
from conftest import SCENARIO1

tomllib = pytest.importorskip("tomllib")


def test_load_keeps_text_and_source():
    scenario = Scenario.load(SCENARIO1)
    assert scenario.text == SCENARIO1.read_text(encoding="utf-8")
    assert scenario.source == str(SCENARIO1)
    assert scenario.overrides == ()


def test_from_text_has_no_source():
    scenario = Scenario.from_text(SCENARIO1.read_text(encoding="utf-8"))
    assert scenario.source is None


def test_with_returns_new_scenario():
    base = Scenario.load(SCENARIO1)
    changed = base.with_({"queue.aqm": "red"}, duration_s=5.0, traffic__schedule__flows=10)
    assert base.overrides == ()
    assert changed.overrides == (
        ("queue.aqm", '"red"'),
        ("duration_s", "5.0"),
        ("traffic.schedule.flows", "10"),
    )
    assert changed.source == base.source
    assert changed.with_literals([("queue.aqm", "droptail")]).overrides[-1] == (
        "queue.aqm",
        "droptail",
    )


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("red", '"red"'),
        ('a"b', '"a\\"b"'),
        (True, "true"),
        (False, "false"),
        (800, "800"),
        (0.1, "0.1"),
        (1e-7, "1e-07"),
        (2.0, "2.0"),
        (math.inf, "inf"),
        ([0.0, 5.0], "[0.0, 5.0]"),
        ({"a": 1}, '{"a" = 1}'),
        (np.int64(3), "3"),
        (np.float64(0.5), "0.5"),
        (np.bool_(True), "true"),
    ],
)
def test_toml_literal(value, literal):
    assert toml_literal(value) == literal
    assert tomllib.loads(f"x = {literal}")["x"] == value


def test_resolved_applies_overrides(small_scenario):
    resolved = tomllib.loads(small_scenario.with_(queue__aqm="red").resolved())
    assert resolved["queue"]["aqm"] == "red"
    assert resolved["duration_s"] == 5.0
    assert resolved["traffic"]["schedule"]["flows"] == 10


def test_resolved_is_canonical(small_scenario):
    resolved = small_scenario.resolved()
    assert Scenario.from_text(resolved).resolved() == resolved


def test_unknown_key_is_rejected():
    with pytest.raises(ScenarioError, match="no_such_key"):
        Scenario.load(SCENARIO1).with_(queue__no_such_key=1).resolved()


def test_bad_value_names_allowed_values():
    with pytest.raises(ScenarioError) as info:
        Scenario.load(SCENARIO1).with_(queue__aqm="no_such_aqm").resolved()
    message = str(info.value)
    assert "queue.aqm" in message
    assert "droptail" in message
    assert "\n" not in message


def test_toml_syntax_error_is_scenario_error():
    with pytest.raises(ScenarioError):
        Scenario.from_text("duration_s = = 1").resolved()


def test_scenario_error_is_value_error():
    assert issubclass(ScenarioError, ValueError)


def test_flow_groups_file_resolves_and_keeps_its_groups():
    """Chen 2011's Table 1 traffic (500 flows plus 100 random late starters) as two groups."""
    path = REPO_ROOT_DIR / "experiments" / "chen2011" / "table1_new_flows.toml"
    resolved = tomllib.loads(Scenario.load(path).resolved())
    groups = resolved["traffic"]["groups"]
    assert [g["name"] for g in groups] == ["long-lived", "new"]
    assert groups[0]["schedule"] == {"kind": "constant", "flows": 500}
    assert groups[1]["schedule"]["kind"] == "random"
    assert groups[1]["schedule"]["start_window_s"] == [0.0, 100.0]
    assert "schedule" not in resolved["traffic"]


@pytest.mark.parametrize(
    "path",
    sorted((REPO_ROOT_DIR / "experiments" / "li2014").glob("*.toml"))
    + sorted((REPO_ROOT_DIR / "experiments" / "chen2011").glob("*.toml")),
    ids=lambda p: p.name,
)
def test_li2014_and_chen2011_scenario_files_resolve(path):
    """Every scenario file of the two ns-2 papers resolves, with the paper's flow counts."""
    resolved = tomllib.loads(Scenario.load(path).resolved())
    traffic = resolved["traffic"]
    schedules = [g["schedule"] for g in traffic.get("groups", [])] or [traffic["schedule"]]
    assert all(s["kind"] in {"constant", "events", "random", "periodic"} for s in schedules)


def test_two_bottleneck_file_runs_from_python_with_a_row_per_port():
    """Li 2014 Tables 15-16's network: two AQM ports and C's drop-tail port, three groups."""
    path = REPO_ROOT_DIR / "experiments" / "li2014" / "table15_16_two_bottlenecks.toml"
    sc = Scenario.load(path).with_literals([("duration_s", "4"), ("queue.aqm", "red")])
    r = aqmlab.run(sc)
    assert list(r.ports["name"]) == ["B->C", "C->D", "D->E"]
    assert list(r.ports["aqm"]) == ["red", "droptail", "red"]
    assert list(r.groups["name"]) == ["N", "N1", "N2"]
    assert list(r.groups["flows"]) == [500, 200, 200]
    assert set(r.port_timeseries["port"]) == {0, 1, 2}
    # The summary is the first bottleneck's.
    assert r.summary_dict["drop_rate"] == r.ports["drop_rate"].iloc[0]
