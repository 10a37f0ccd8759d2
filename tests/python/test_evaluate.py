"""`aqmlab evaluate`: RFC 7928's scenario files run (shortened), the report card is built from
stored runs and reused on a second call, the ranking and the derived measures are right, and
bad input is one line with exit status 2."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from aqmlab import _core
from aqmlab.evaluate.card import ellipse
from aqmlab.evaluate.metrics import (
    category_loss_rate,
    category_ratio,
    fct_mean_s,
    queue_delay_ms,
)
from aqmlab.evaluate.ranking import rank
from aqmlab.evaluate.run import evaluate, section_experiment, with_baseline
from aqmlab.evaluate.sensitivity import scaled_parameters, sensitivity_runs, with_changes
from aqmlab.evaluate.suite import SECTIONS, Criterion, Section
from conftest import assert_usage_error, run_cli


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.stem)
def test_every_case_of_every_section_runs_shortened(section):
    """Each grid point of the quick grid, cut to 12 s (stability's flows join and leave at fixed
    times up to 80 s: its 100 s): the core accepts it, conserves packets and reports no NaN
    where a number is due."""
    exp = section_experiment(section, ["pie", "fq_codel"], quick=True)
    if section.stem != "stability":
        exp = dataclasses.replace(exp, fixed=(*exp.fixed, ("duration_s", 12.0)))
    for spec in exp.runs():
        s = _core.run_scenario(spec.scenario_text, [], None, None)["summary"]
        assert s["data_sent"] == s["data_delivered"] + s["data_dropped"] + s["data_in_flight"]
        for metric in ("throughput_mbps", "drop_rate", "avg_queue_pkts", "delay_mean_ms"):
            assert not math.isnan(s[metric]), (spec.params, metric)
        assert 0.0 <= s["drop_rate"] <= 1.0


def test_the_report_card_is_built_from_stored_runs_and_reused(tmp_path):
    out = tmp_path / "card"
    first = evaluate(["red", "fq_codel"], out, quick=True, chosen=["multi_aqm", "ecn"], jobs=1,
                     progress=False)  # fmt: skip
    assert first.sweep.ran == 81 and not first.sweep.failed  # droptail, the baseline, too
    text = first.report.read_text(encoding="utf-8")
    assert "## §10 Multi-AQM scenario" in text and "## §4.5 Interaction with ECN" in text
    assert "| rank | AQM |" in text and "mark rate (%)" in text
    for stem in ("multi_aqm", "ecn"):
        assert (out / "figures" / f"{stem}_delay_goodput.png").is_file()
        assert (out / "figures" / f"{stem}_probe_rtt.svg").is_file()
        ranking = pd.read_parquet(out / "tables" / f"{stem}_ranking.parquet")
        assert sorted(ranking["aqm"]) == ["droptail", "fq_codel", "red"]
    measures = pd.read_parquet(out / "tables" / "ecn.parquet")
    assert set(measures["ecn"]) == {"off", "on"}
    marks = measures.groupby(["aqm", "ecn"])["mark_rate"].max()
    assert marks[("red", "off")] == 0.0 and marks[("fq_codel", "on")] > 0.0

    second = evaluate(["red", "fq_codel"], out, quick=True, chosen=["multi_aqm", "ecn"], jobs=1,
                      progress=False)  # fmt: skip
    assert second.sweep.ran == 0 and second.sweep.skipped == 81
    timing = ("- runs:",)  # the line with this call's wall time
    same = [ln for ln in text.splitlines() if not ln.startswith(timing)]
    again = [ln for ln in second.report.read_text().splitlines() if not ln.startswith(timing)]
    assert same == again


def test_ranking_follows_each_criterion_and_shares_ties():
    section = Section("s", "§0", "t", "r", (Criterion("a", "min"), Criterion("b", "max")))
    measures = pd.DataFrame(
        {
            "aqm": ["x", "x", "y", "y", "z", "z"],
            "a": [1.0, 3.0, 2.0, 2.0, 5.0, 5.0],
            "b": [1.0, 1.0, 9.0, 9.0, 5.0, math.nan],
        }
    )
    table = rank(measures, section, ["z", "y", "x"]).set_index("aqm")
    # Means: a = x 2, y 2, z 5; b = x 1, y 9, z 5 (NaN skipped).
    assert table.loc["x", "rank_a"] == 1 and table.loc["y", "rank_a"] == 1
    assert table.loc["z", "rank_a"] == 3
    assert list(table["rank_b"].loc[["y", "z", "x"]]) == [1, 2, 3]
    assert table.loc["y", "rank"] == 1
    # x: ranks 1 and 3 (mean 2), z: 3 and 2 (2.5).
    assert table.loc["x", "rank"] == 2 and table.loc["z", "rank"] == 3
    unranked = rank(measures.assign(a=math.nan, b=math.nan), section, ["x", "y"])
    assert unranked["rank"].isna().all()
    tied = rank(measures.assign(b=1.0), section, ["x", "y", "z"]).set_index("aqm")
    assert tied.loc["x", "rank"] == tied.loc["y", "rank"] == 1


def test_derived_measures():
    fct = pd.DataFrame({"completed": [2, 0, 1], "fct_mean_s": [1.0, 99.0, 4.0]})
    assert fct_mean_s(fct) == pytest.approx(2.0)
    assert math.isnan(fct_mean_s(fct.assign(completed=0)))
    groups = pd.DataFrame(
        {"name": ["probe", "reference", "other"], "throughput_mbps": [0.01, 4.0, 1.0]}
    )
    assert category_ratio(groups) == pytest.approx(0.25)
    losses = groups.assign(loss_rate=[0.0, 0.01, 0.03])
    assert category_loss_rate(losses, "other") == 0.03
    assert math.isnan(category_loss_rate(losses, "missing"))
    assert math.isnan(category_ratio(groups[groups["name"] != "other"]))


def test_the_ellipse_has_the_samples_standard_deviations():
    rng = np.random.default_rng(3)
    x = rng.normal(10.0, 2.0, 20000)
    y = rng.normal(5.0, 0.5, 20000)
    shape = ellipse(x, y)
    assert shape.center == pytest.approx((10.0, 5.0), abs=0.05)
    assert shape.width == pytest.approx(4.0, rel=0.03)
    assert shape.height == pytest.approx(1.0, rel=0.03)
    assert ellipse(x[:2], y[:2]) is None


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["reed"], ["AQM: unknown 'reed'", "fq_codel"]),
        (["red", "red"], ["AQM: 'red' given twice"]),
        (["red", "--sections", "transport,tranport"], ["--sections: unknown 'tranport'"]),
        (["red", "--sections", ","], ["--sections: empty"]),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, fragments):
    out = tmp_path / "out"
    proc = run_cli("evaluate", *args, "--quick", "--out", str(out))
    assert_usage_error(proc, *fragments)
    assert not out.exists()


def test_sensitivity_scales_real_parameters_and_measures_against_the_same_seed():
    assert [name for name, _ in scaled_parameters("red")] == [
        "q_min_pkts", "q_max_pkts", "p_max", "w", "mark_p_max",
    ]  # fmt: skip
    sensitivity = next(s for s in SECTIONS if s.stem == "sensitivity")
    exp = section_experiment(sensitivity, ["red"], quick=True)
    specs, refused = sensitivity_runs(exp, ["red"])
    assert list(dict.fromkeys((s.params["parameter"], s.params["factor"]) for s in specs))[:3] == [
        ("default", 1.0), ("q_min_pkts", 0.5), ("q_min_pkts", 2.0),
    ]  # fmt: skip
    assert refused == [("red", "mark_p_max", 2.0, "queue.red.mark_p_max: must be in (0, 1]")]
    measures = pd.DataFrame(
        {
            "aqm": ["red"] * 4,
            "seed": [1, 2, 1, 2],
            "parameter": ["default", "default", "w", "w"],
            "queue_delay_mean_ms": [10.0, 20.0, 15.0, 10.0],
            "goodput_mbps": [5.0, 5.0, 5.0, 4.0],
        }
    )
    changed = with_changes(measures)
    assert changed["delay_change"].iloc[2:].tolist() == [0.5, 0.5]
    assert changed["goodput_change"].iloc[2:].tolist() == [0.0, pytest.approx(0.2)]
    assert changed["delay_change"].iloc[:2].isna().all()


def test_drop_tail_is_the_baseline_unless_left_out():
    assert with_baseline(["red"], True) == ["red", "droptail"]
    assert with_baseline(["droptail", "red"], True) == ["droptail", "red"]
    assert with_baseline(["red"], False) == ["red"]


def test_the_queueing_delay_follows_the_rate_schedule():
    scenario = {
        "topology": {
            "bottleneck_rate_mbps": 100.0,
            "bottleneck_rate_schedule": [[20.0, 10.0], [40.0, 100.0]],
        }
    }
    traces = pd.DataFrame({"t_s": [0.0, 19.99, 20.0, 39.0, 41.0], "queue_bytes": [125000] * 5})
    # 125 kB is 10 ms at 100 Mb/s and 100 ms at 10 Mb/s; a change applies from its time on.
    assert queue_delay_ms(traces, scenario).tolist() == pytest.approx([10, 10, 100, 100, 10])
    chain = {"topology": {"kind": "chain", "links": [{"rate_mbps": 10.0}]}}
    assert queue_delay_ms(traces, chain).tolist() == pytest.approx([100] * 5)
    # A queue that meets a change drains at both rates: at 19.995 s, 5 ms at 100 Mb/s send
    # 62.5 kB and the other 62.5 kB take 50 ms at 10 Mb/s; at 39.95 s, 50 ms at 10 Mb/s send
    # 62.5 kB and the rest takes 5 ms at 100 Mb/s.
    crossing = pd.DataFrame({"t_s": [19.995, 39.95], "queue_bytes": [125000] * 2})
    assert queue_delay_ms(crossing, scenario).tolist() == pytest.approx([55, 55])
    # The 100 ms alternation: of 1 MB waiting half-way through a slow phase (800 ms at
    # 10 Mb/s), 62.5 kB leave in the phase's last 50 ms and the other 937.5 kB in 75 ms of the
    # next, at 100 Mb/s: 125 ms.
    fast = {
        "topology": {
            "bottleneck_rate_mbps": 100.0,
            "bottleneck_rate_schedule": [[0.1 * k, 10.0 if k % 2 else 100.0] for k in range(1, 11)],
        }
    }
    one = pd.DataFrame({"t_s": [0.15], "queue_bytes": [1_000_000]})
    assert queue_delay_ms(one, fast).tolist() == pytest.approx([125])
