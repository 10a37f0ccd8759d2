"""The L4S coexistence experiment `experiments/l4s/` (docs/l4s-experiments.md): its scenario
runs, its file sweeps what the page says, and the `coexistence` plot kind computes the rate
balance and the groups' queuing delays from the kept tables and draws its figures."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd
import pytest
import tomllib

import aqmlab
from aqmlab.engine.store import RunStore
from aqmlab.present import coexistence_plots as cp
from aqmlab.present.plots import plot_experiment
from aqmlab.sweeps.experiment import Experiment, ExperimentError
from aqmlab.sweeps.grid import load_point_traces, load_tables, sweep
from conftest import REPO_ROOT, run_cli

L4S = REPO_ROOT / "experiments" / "l4s"
SHORT = {"duration_s": 4.0, "measure.window": "second_half"}


def test_the_scenario_puts_the_scalable_group_in_the_l_queue():
    sc = aqmlab.Scenario.load(L4S / "scenarios" / "coexistence.toml")
    r = aqmlab.run(sc.with_(SHORT))
    assert list(r.groups["name"]) == ["scalable", "classic"]
    port = r.ports.iloc[0]
    assert port["aqm"] == "dualpi2"
    # ECT(1) data (and nothing classic) in L; CUBIC's Not-ECT data in C
    assert port["l_arrivals"] > 0 and port["c_arrivals"] > 0
    assert port["l_sojourn_mean_ms"] < port["c_sojourn_mean_ms"]
    assert set(r.flows["rtt_prop_ms"].round(6)) == {20.0}
    ts = r.timeseries
    assert {"goodput_mbps_scalable", "goodput_mbps_classic"} <= set(ts.columns)


def test_the_experiment_file_sweeps_what_the_page_says():
    exp = Experiment.load(L4S / "coexistence.toml")
    assert exp.plot.kind == "coexistence"
    assert exp.traces and {"flows", "groups"} <= set(exp.tables)
    assert exp.axis("aqm").values == ("dualpi2", "fq_codel", "pie", "droptail")
    rtts = [2 * d for d in exp.axis("bottleneck_delay_ms").values]
    assert rtts == [5.0, 10.0, 20.0, 50.0, 100.0]
    assert exp.axis("flows_per_group").values == (1, 4)
    assert exp.axis("scalable").values == (("dctcp", "ect1"), ("prague", "ect1"))
    assert len(exp.runs()) == 4 * 2 * 5 * 2 * 3
    quick = Experiment.load(L4S / "coexistence.toml", quick=True)
    assert len(quick.runs()) == 4 * 2 * 5 * 2
    assert cp.panel_axes(exp) == ["scalable", "flows_per_group"]


def _groups(run_id, rtt_ms, scalable, classic):
    """Groups and flows tables of one synthetic run: (flow goodput, delay mean, p99) each."""
    groups = pd.DataFrame(
        {
            "run_id": run_id,
            "group": [0, 1],
            "name": ["scalable", "classic"],
            "flows": [1, 1],
            "flow_throughput_mbps": [scalable[0], classic[0]],
            "delay_mean_ms": [scalable[1], classic[1]],
            "delay_p99_ms": [scalable[2], classic[2]],
            "loss_rate": [0.0, 0.01],
        }
    )
    flows = pd.DataFrame({"run_id": run_id, "flow": [0, 1], "rtt_prop_ms": [rtt_ms, rtt_ms]})
    return groups, flows


def test_rate_balance_and_queuing_delay_of_a_run():
    groups, flows = _groups("a", 20.0, (30.0, 11.0, 12.0), (10.0, 25.0, 40.0))
    row = cp.run_balance(groups, flows).iloc[0]
    assert row["base_rtt_ms"] == 20.0
    assert row["rate_balance"] == pytest.approx(3.0)
    assert row["scalable_queue_delay_mean_ms"] == pytest.approx(1.0)  # 11 - 20 / 2
    assert row["classic_queue_delay_p99_ms"] == pytest.approx(30.0)
    starved, flows = _groups("b", 20.0, (30.0, 11.0, 12.0), (0.0, 25.0, 40.0))
    assert math.isinf(cp.run_balance(starved, flows).iloc[0]["rate_balance"])


def test_groups_must_be_named_scalable_and_classic():
    groups, flows = _groups("a", 20.0, (1.0, 1.0, 1.0), (1.0, 1.0, 1.0))
    groups["name"] = ["l4s", "classic"]
    with pytest.raises(cp.CoexistenceError, match="no flow group named 'scalable'"):
        cp.run_balance(groups, flows)
    with pytest.raises(cp.CoexistenceError, match="no kept groups table"):
        cp.run_balance(pd.DataFrame(), flows)


def test_seeds_average_the_balance_geometrically():
    exp = Experiment.load(L4S / "coexistence.toml")
    g1, f1 = _groups("s1", 10.0, (40.0, 6.0, 7.0), (10.0, 6.0, 7.0))  # balance 4
    g2, f2 = _groups("s2", 10.0, (10.0, 6.0, 7.0), (40.0, 6.0, 7.0))  # balance 1/4
    point = {"aqm": "pie", "scalable": "(dctcp, ect1)", "bottleneck_delay_ms": 5.0}
    df = pd.DataFrame(
        [
            {"run_id": rid, **point, "flows_per_group": 1, "seed": seed, "link_efficiency": eff,
             "mark_rate": 0.0, "drop_rate": 0.0}
            for rid, seed, eff in (("s1", 1, 1.0), ("s2", 2, 0.5))
        ]
    )  # fmt: skip
    tables = {"groups": pd.concat([g1, g2]), "flows": pd.concat([f1, f2])}
    pts = cp.coexistence_points(exp, df, tables)
    assert len(pts) == 1
    row = pts.iloc[0]
    assert row["rate_balance"] == pytest.approx(1.0)
    assert (row["rate_balance_min"], row["rate_balance_max"]) == (0.25, 4.0)
    assert row["seeds"] == 2 and row["link_efficiency"] == pytest.approx(0.75)
    assert row["base_rtt_ms"] == 10.0


def test_file_names_of_panels():
    assert cp.file_suffix({"scalable": "(dctcp, ect1)", "flows_per_group": 4}, 0) == "dctcp-ect1_4"
    assert cp.file_suffix({}, 2) == "2"


def test_moving_average_is_trailing():
    t = np.arange(6) * 0.5
    out = cp.moving_average(t, np.array([0.0, 2.0, 4.0, 6.0, 8.0, 10.0]), 1.0)
    assert list(out) == [0.0, 1.0, 3.0, 5.0, 7.0, 9.0]


def _tiny(tmp_path):
    """The experiment on a short grid: DCTCP, two AQMs, two RTTs, 1 vs 1, 6 s runs."""
    text = (L4S / "coexistence.toml").read_text(encoding="utf-8")
    text = text.replace(
        'scenario = "scenarios/coexistence.toml"', f'scenario = "{L4S}/scenarios/coexistence.toml"'
    )
    text = text.replace(
        'values = ["dualpi2", "fq_codel", "pie", "droptail"]', 'values = ["dualpi2", "droptail"]'
    )
    text = text.replace("values = [2.5, 5.0, 10.0, 25.0, 50.0]", "values = [5.0, 25.0]")
    text = text.replace("values = [1, 4]", "values = [1]")
    text = text.replace(
        'values = [["dctcp", "ect1"], ["prague", "ect1"]]', 'values = [["dctcp", "ect1"]]'
    )
    text = text.replace("seeds = [1, 2, 3]", "seeds = [1, 2]")
    text += textwrap.dedent(
        """
        [fixed]
        duration_s = 6.0
        "measure.window" = "second_half"
        """
    )
    path = tmp_path / "tiny_l4s.toml"
    path.write_text(text, encoding="utf-8")
    return Experiment.load(path)


@pytest.fixture
def caught(monkeypatch):
    figures = {}
    original = cp.save_figure

    def keep(fig, out_dir, stem):
        figures[stem] = fig
        return original(fig, out_dir, stem)

    monkeypatch.setattr(cp, "save_figure", keep)
    return figures


def test_figures_from_a_tiny_sweep(tmp_path, caught):
    exp = _tiny(tmp_path)
    out = tmp_path / "out"
    df = sweep(exp, out, jobs=1, progress=False)
    specs = exp.runs()
    store = RunStore(out)
    tables = load_tables(exp, specs, store)
    traces = load_point_traces(specs, store)
    assert len(traces) == 4  # the first seed of each of the 2 x 2 grid points
    paths = plot_experiment(exp, df, out, "t", tables=tables, traces=traces)
    stems = {p.stem for p in paths}
    assert stems == {"t_rate_balance", "t_queue_delay", "t_throughput_time_dctcp-ect1_1"}

    balance = caught["t_rate_balance"].axes[0]
    assert balance.get_yscale() == "log"
    labels = balance.get_legend_handles_labels()[1]
    assert labels == ["within a factor of 2", "DualPI2", "Drop Tail"]
    pts = cp.coexistence_points(exp, df, tables)
    assert sorted(pts["base_rtt_ms"].unique()) == [10.0, 50.0]
    dual = pts[pts["aqm"] == "dualpi2"]
    # DualPI2 keeps the scalable (L) group's queue far below the classic (C) group's
    assert (dual["scalable_queue_delay_mean_ms"] < dual["classic_queue_delay_mean_ms"]).all()
    assert (pts["scalable_queue_delay_p99_ms"] >= pts["scalable_queue_delay_mean_ms"]).all()
    assert np.isfinite(pts["rate_balance"]).all() and (pts["rate_balance"] > 0).all()
    delay = caught["t_queue_delay"]
    assert [a.get_title().split("\n")[0] for a in delay.axes] == ["DualPI2", "Drop Tail"]
    assert [t.get_text() for t in delay.axes[0].get_legend().get_texts()] == [
        "scalable (L queue)",
        "classic (C queue)",
    ]
    time_fig = caught["t_throughput_time_dctcp-ect1_1"]
    assert len(time_fig.axes) == 4  # 2 AQMs x 2 RTTs
    assert all(len(a.get_lines()) == 2 for a in time_fig.axes)


def test_the_sweep_command_draws_the_coexistence_figures(tmp_path):
    exp = _tiny(tmp_path)
    out = tmp_path / "out"
    proc = run_cli("sweep", str(exp.path), "--jobs", "1", "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in out.iterdir()}
    assert {"tiny_l4s_rate_balance.png", "tiny_l4s_queue_delay.svg", "groups.parquet"} <= names
    groups = pd.read_parquet(out / "groups.parquet")
    assert "delay_p99_ms" in groups.columns


def test_a_coexistence_plot_needs_x_and_lines(tmp_path):
    exp = _tiny(tmp_path)
    text = exp.path.read_text(encoding="utf-8")
    exp.path.write_text(text.replace('x = "bottleneck_delay_ms"\n', ""), encoding="utf-8")
    with pytest.raises(ExperimentError, match='plot.x: required for kind = "coexistence"'):
        Experiment.load(exp.path)
    proc = run_cli("sweep", str(exp.path), "--quiet")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1


def test_bbr_against_cubic_runs_the_same_grid_with_bbr_in_the_first_group():
    exp = Experiment.load(L4S / "bbr_cubic.toml")
    assert exp.plot.kind == "coexistence"
    assert exp.axis("aqm").values == ("dualpi2", "fq_codel", "pie", "droptail")
    assert len(exp.runs()) == 4 * 5 * 2 * 3
    text = exp.runs()[0].scenario_text
    assert 'cc = "bbr"' in text and "ecn = false" in text


def test_the_published_comparison_sweeps_what_the_page_says():
    exp = Experiment.load(L4S / "rtt_fairness_s1.toml")
    assert exp.plot.kind == "coexistence"
    assert exp.axis("aqm").values == (("dualpi2", 10000), ("fq_codel", 10240), ("droptail", 1000))
    assert [2 * d for d in exp.axis("bottleneck_delay_ms").values] == [10.0, 20.0, 80.0]
    assert exp.axis("bottleneck_rate_mbps").values == (10.0, 50.0)
    assert exp.axis("setup").values == ((True, 0, False), (False, 2, True))
    assert len(exp.runs()) == 3 * 2 * 3 * 2 * 3
    text = exp.runs()[-1].scenario_text
    assert "duration_s = 180.0" in text and "window = [118.0, 178.0]" in text
    assert "prague_ecn_fallback = false" in text and "min_qlen_step_pkts = 2" in text


def test_the_peak_end_sweep_is_scenario_2_with_the_peak_stopping_as_each_case_says():
    exp = Experiment.load(L4S / "bbr_peak_end.toml")
    assert exp.axis("cc").values == ("bbr", "cubic")
    assert exp.axis("peak_stop").values == ("at_150_s", "over_2_s", "over_7_s", "send_buffer")
    assert len(exp.runs()) == 2 * 4 * 3
    peak = tomllib.loads(
        aqmlab.Scenario.load(L4S / "scenarios" / "betared_peak_end.toml").resolved()
    )
    steps = aqmlab.Scenario.load(REPO_ROOT / "experiments" / "betared" / "scenario2.toml")
    steps = tomllib.loads(steps.resolved())
    assert peak["topology"] == steps["topology"] and peak["tcp"] == steps["tcp"]
    assert [g["schedule"]["flows"] for g in peak["traffic"]["groups"]] == [100, 100, 600]
    windows = {r.params["peak_stop"]: r.scenario_text for r in exp.runs()}
    assert "stop_window_s = [150.0, 157.0]" in windows["over_7_s"]
    assert "send_buffer_bytes = 131072" in windows["send_buffer"]
    assert "send_buffer_bytes" not in windows["at_150_s"]


def test_the_peak_groups_flows_stop_within_their_window_and_the_others_run_on():
    sc = aqmlab.Scenario.load(L4S / "scenarios" / "betared_peak_end.toml")
    short = {
        "duration_s": 3.0,
        "traffic.groups[1].schedule.start_window_s": [0.5, 1.0],
        "traffic.groups[2].schedule.start_window_s": [1.0, 1.5],
        "traffic.groups[2].schedule.stop_window_s": [2.0, 2.5],
        "measure.window": [2.5, 3.0],
    }
    flows = aqmlab.run(sc.with_(short)).flows
    peak = flows[flows["group"] == 2]
    assert len(peak) == 600 and peak["stop_s"].between(2.0, 2.5).all()
    assert peak["stop_s"].nunique() > 1
    assert flows[flows["group"] < 2]["stop_s"].isna().all()


def test_the_step_marks_the_second_of_each_gso_pair_on_a_slow_link():
    """At 10 Mb/s one packet's transmission (1.2 ms) exceeds DualPI2's 1 ms step, so the second
    segment of each of Prague's GSO pairs is marked on arrival: Prague starves with or without
    its classic-ECN fall-back, and the 2020 step rule (the step only for a packet that finds
    more than one in the L queue) gives it its share (docs/validation-l4s.md)."""
    sc = aqmlab.Scenario.load(L4S / "scenarios" / "coexistence.toml")
    base = {
        "duration_s": 10.0,
        "measure.window": "second_half",
        "topology.bottleneck_rate_mbps": 10.0,
        "traffic.groups[0].tcp.cc": "prague",
    }
    cases = {
        "upstream": {},
        "no fallback": {"traffic.groups[0].tcp.prague_ecn_fallback": False},
        "2020 step": {"queue.dualpi2.min_qlen_step_pkts": 2},
    }
    prague = {}
    for name, extra in cases.items():
        r = aqmlab.run(sc.with_({**base, **extra}))
        prague[name] = r.groups.set_index("name").loc["scalable", "flow_throughput_mbps"]
    assert prague["2020 step"] > 3 * max(prague["upstream"], prague["no fallback"]), prague


def test_dctcp_halving_on_loss_leaves_classic_flows_more_through_drop_tail():
    """Through drop tail DCTCP sees only losses; ns-3.37's (1 − α/2) with α near 0 barely backs
    off, RFC 8257 §3.5's halving (`tcp.dctcp_halve_on_loss`) backs off as Reno would."""
    sc = aqmlab.Scenario.load(L4S / "scenarios" / "coexistence.toml")
    base = {"duration_s": 20.0, "measure.window": "second_half", "queue.aqm": "droptail"}
    classic = {}
    for halve in (False, True):
        r = aqmlab.run(sc.with_({**base, "traffic.groups[0].tcp.dctcp_halve_on_loss": halve}))
        classic[halve] = r.groups.set_index("name").loc["classic", "flow_throughput_mbps"]
    assert classic[True] > 1.5 * classic[False]
