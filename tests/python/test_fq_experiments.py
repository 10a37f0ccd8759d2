"""The flow-queueing suite `experiments/fq/` (docs/fq-experiments.md): its scenarios run, its
experiment files sweep every registered AQM, a sweep keeps each run's probes, flows and
groups, and the three latency-under-load figures are drawn from them."""

from __future__ import annotations

import os
import textwrap

import numpy as np
import pandas as pd
import pytest

import aqmlab
from aqmlab import _core
from aqmlab.engine.store import RunStore
from aqmlab.present import fq_plots
from aqmlab.present.plots import plot_experiment
from aqmlab.sweeps.experiment import Experiment, ExperimentError
from aqmlab.sweeps.grid import execute, load_table, load_tables, sweep, table
from conftest import REPO_ROOT, run_cli

FQ = REPO_ROOT / "experiments" / "fq"
CASES = ("rrul", "mixed_rtt", "udp_flood")
SHORT = {"duration_s": 4.0, "measure.window": "second_half"}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("aqm", ["fq_codel", "droptail"])
def test_each_scenario_runs_briefly(case, aqm):
    sc = aqmlab.Scenario.load(FQ / "scenarios" / f"{case}.toml")
    r = aqmlab.run(sc.with_({**SHORT, "queue.aqm": aqm}))
    s = r.summary_dict
    assert s["aqm"] == aqm
    assert s["probes_sent"] == 10  # one every 200 ms over the last 2 s
    assert s["probe_rtt_p50_ms"] >= 40.0 * 0.99  # never below the base RTT
    assert s["throughput_mbps"] > 1.0
    assert list(r.groups["name"])[-1] == "ping"
    assert set(r.probes["group"]) == {len(r.groups) - 1}
    assert set(r.ports["aqm"]) == {aqm}


def test_rrul_has_the_aqm_in_both_directions():
    sc = aqmlab.Scenario.load(FQ / "scenarios" / "rrul.toml")
    r = aqmlab.run(sc.with_({**SHORT, "queue.aqm": "codel"}))
    assert list(r.ports["name"]) == ["A->B", "B->A"]
    assert list(r.ports["aqm"]) == ["codel", "codel"]
    assert list(r.groups["name"]) == ["upload", "download", "ping"]
    flows = r.flows
    assert set(flows["rtt_prop_ms"].round(6)) == {40.0}
    up, down = (
        r.groups.set_index("name").loc[g, "throughput_mbps"] for g in ("upload", "download")
    )
    assert up > 1.0 and down > 1.0  # both directions loaded


def test_mixed_rtt_spans_10_to_200_ms():
    sc = aqmlab.Scenario.load(FQ / "scenarios" / "mixed_rtt.toml")
    r = aqmlab.run(sc.with_(SHORT))
    tcp = r.flows[r.flows["group"] == 0]
    assert sorted(tcp["rtt_prop_ms"].round(6)) == [10, 20, 40, 60, 80, 120, 160, 200]
    assert r.flows[r.flows["group"] == 1]["rtt_prop_ms"].round(6).tolist() == [40.0]


def test_udp_flood_offers_one_and_a_half_times_the_link():
    sc = aqmlab.Scenario.load(FQ / "scenarios" / "udp_flood.toml")
    r = aqmlab.run(sc.with_({**SHORT, "queue.aqm": "droptail"}))
    udp = r.flows[r.flows["group"] == 1].iloc[0]
    sent_mbps = udp["data_sent"] * 1000 * 8 / 1e6 / (4.0 - float(udp["start_s"]))
    assert sent_mbps == pytest.approx(15.0, rel=0.05)


@pytest.mark.parametrize("case", CASES)
def test_each_experiment_sweeps_every_registered_aqm(case):
    """A newly registered AQM fails here until it is added to the file's list."""
    exp = Experiment.load(FQ / f"{case}.toml")
    aqms = exp.axis("aqm").values
    assert exp.axis("aqm").keys == ("queue.aqm",)
    assert len(aqms) == len(set(aqms))
    assert set(aqms) == set(_core.catalog()["aqms"])
    assert exp.plot.kind == "latency" and exp.plot.lines == "aqm"
    assert {"probes", "flows", "groups"} <= set(exp.tables)
    specs = exp.runs()  # every AQM's defaults are valid on this link
    assert len(specs) == len(aqms) * len(exp.seeds)
    quick = Experiment.load(FQ / f"{case}.toml", quick=True)
    assert quick.seeds == (1,) and set(quick.axis("aqm").values) == set(aqms)


def _tiny(tmp_path, case="rrul", aqms=("droptail", "fq_codel"), seeds=(1,)) -> Experiment:
    scenario = (FQ / "scenarios" / f"{case}.toml").as_posix()
    text = f"""
    title = "tiny {case} ({{window}})"
    scenario = "{scenario}"
    seeds = {list(seeds)}

    [fixed]
    duration_s = 4.0
    "measure.window" = "second_half"

    [[axes]]
    name = "aqm"
    key = "queue.aqm"
    values = {list(aqms)!r}

    [plot]
    kind = "latency"
    lines = "aqm"
    y = ["throughput_mbps", "probe_rtt_p50_ms"]
    """.replace("'", '"')
    path = tmp_path / f"tiny_{case}.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return Experiment.load(path)


def test_probes_are_kept_per_run_and_match_the_summary(tmp_path):
    exp = _tiny(tmp_path)
    out = tmp_path / "out"
    specs = exp.runs()
    execute(specs, out, jobs=1, progress=False)
    store = RunStore(out)
    df = table(exp, specs, store)
    for spec in specs:
        assert store.has(spec.run_id, tables=("probes", "flows", "groups"))
        kept = store.read_table(spec.run_id, "probes")
        direct = aqmlab.run(aqmlab.Scenario.from_text(spec.scenario_text)).probes
        pd.testing.assert_frame_equal(kept, direct)
    probes = load_table(specs, store, "probes")
    assert list(probes.columns[:3]) == ["run_id", "aqm", "seed"]
    inside = fq_plots.windowed_probes(df, probes)
    for aqm, rows in inside.groupby("aqm"):
        summary = df[df["aqm"] == aqm].iloc[0]
        # answered ones only: the last probes of a run may still be on their way back
        assert 0 < len(rows) <= summary["probes_sent"] - summary["probes_lost"]
        p50 = fq_plots.percentile(rows["rtt_ms"].to_numpy(), 50)
        assert p50 == summary["probe_rtt_p50_ms"]
    # A run stored without one of its tables is run again.
    os.remove(store.table_path(specs[0].run_id, "probes"))
    assert execute(specs, out, jobs=1, progress=False).ran == 1


def test_a_sweep_without_tables_keeps_none(tmp_path):
    exp = _tiny(tmp_path)
    text = exp.path.read_text(encoding="utf-8").replace('kind = "latency"', 'x = "aqm"')
    exp.path.write_text(text.replace('lines = "aqm"\n', ""), encoding="utf-8")
    plain = Experiment.load(exp.path)
    assert plain.tables == ()
    sweep(plain, tmp_path / "out", jobs=1, progress=False)
    assert not list((tmp_path / "out" / "runs").glob("*.parquet"))
    assert not (tmp_path / "out" / "probes.parquet").exists()


@pytest.fixture
def caught(monkeypatch):
    """Figures handed to `fq_plots.save_figure`, kept for inspection (and still written)."""
    figures = {}
    original = fq_plots.save_figure

    def keep(fig, out_dir, stem):
        fig.canvas.draw()
        figures[stem] = fig
        return original(fig, out_dir, stem)

    monkeypatch.setattr(fq_plots, "save_figure", keep)
    return figures


def test_latency_figures_from_a_tiny_sweep(tmp_path, caught):
    exp = _tiny(tmp_path, seeds=(1, 2))
    out = tmp_path / "out"
    df = sweep(exp, out, jobs=1, progress=False)
    specs = exp.runs()
    tables = load_tables(exp, specs, RunStore(out))
    assert set(tables) == {"probes", "flows", "groups"}
    paths = plot_experiment(exp, df, out, "tiny", tables=tables)
    assert sorted(p.name for p in paths) == sorted(
        f"tiny_{name}.{ext}" for name in fq_plots.STEMS for ext in ("png", "svg")
    )
    for p in paths:
        assert p.stat().st_size > 0
    assert (out / "tiny_rtt_cdf.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    cdf = caught["tiny_rtt_cdf"].axes[0]
    assert cdf.get_xscale() == "log"
    assert [t.get_text().split(" (")[0] for t in cdf.get_legend().get_texts()] == [
        "Drop Tail",
        "FQ-CoDel",
    ]
    lines = cdf.get_lines()
    assert len(lines) == 2
    inside = fq_plots.windowed_probes(df, tables["probes"])
    answered = inside[inside["aqm"] == "fq_codel"]
    assert set(answered["seed"]) == {1, 2}
    assert len(lines[1].get_xdata()) == len(answered) + 1  # both seeds' probes, from 0
    assert float(np.max(lines[0].get_xdata())) > float(np.max(lines[1].get_xdata()))

    strip = caught["tiny_flow_throughput"].axes[0]
    assert [t.get_text() for t in strip.get_xticklabels()] == ["Drop Tail", "FQ-CoDel"]
    assert [t.get_text() for t in strip.get_legend().get_texts()] == ["upload", "download"]
    points = sum(len(c.get_offsets()) for c in strip.collections if hasattr(c, "get_offsets"))
    assert points >= 2 * 2 * 8  # 8 load flows per run, 2 AQMs, 2 seeds (plus the mean bars)

    panels = [a for a in caught["tiny_goodput_latency"].axes if a.get_title()]
    assert [a.get_title() for a in panels] == [
        "all flows but the probes",
        "group upload",
        "group download",
    ]
    assert all(a.get_xscale() == "log" for a in panels)
    pts = fq_plots.latency_points(exp, df, tables["probes"], tables["groups"])
    total = pts[pts["goodput"] == "total"].set_index("aqm")
    assert total.loc["fq_codel", "probe_rtt_p50_ms"] < total.loc["droptail", "probe_rtt_p50_ms"]
    assert total.loc["fq_codel", "goodput_mbps"] == pytest.approx(
        df[df["aqm"] == "fq_codel"]["throughput_mbps"].mean()
    )


def test_mixed_rtt_flows_are_coloured_by_base_rtt(tmp_path, caught):
    exp = _tiny(tmp_path, case="mixed_rtt")
    out = tmp_path / "out"
    df = sweep(exp, out, jobs=1, progress=False)
    tables = load_tables(exp, exp.runs(), RunStore(out))
    plot_experiment(exp, df, out, "m", tables=tables)
    fig = caught["m_flow_throughput"]
    assert any(a.get_ylabel() == "base RTT (ms)" for a in fig.axes)  # the colour bar
    panels = [a for a in caught["m_goodput_latency"].axes if a.get_title()]
    assert [a.get_title() for a in panels] == ["all flows but the probes"]  # one load group


def test_the_sweep_command_writes_tables_and_figures(tmp_path):
    exp = _tiny(tmp_path, case="udp_flood")
    out = tmp_path / "out"
    proc = run_cli("sweep", str(exp.path), "--jobs", "1", "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "median probe RTT (ms)" in proc.stdout
    names = {p.name for p in out.iterdir()}
    assert {"results.parquet", "probes.parquet", "flows.csv", "groups.parquet"} <= names
    assert {f"tiny_udp_flood_{s}.{e}" for s in fq_plots.STEMS for e in ("png", "svg")} <= names
    probes = pd.read_parquet(out / "probes.parquet")
    assert set(probes["aqm"]) == {"droptail", "fq_codel"}
    assert {"run_id", "seed", "t_s", "rtt_ms", "lost"} <= set(probes.columns)


def test_bad_tables_and_latency_plots_are_refused(tmp_path):
    exp = _tiny(tmp_path)
    text = exp.path.read_text(encoding="utf-8")

    def load(new_text):
        exp.path.write_text(new_text, encoding="utf-8")
        return Experiment.load(exp.path)

    with pytest.raises(ExperimentError, match="tables: unknown table 'cwnd'"):
        load('tables = ["cwnd"]\n' + text)
    with pytest.raises(ExperimentError, match="tables: repeated table"):
        load('tables = ["flows", "flows"]\n' + text)
    with pytest.raises(ExperimentError, match='plot.lines: required for kind = "latency"'):
        load(text.replace('lines = "aqm"\n', ""))
    two_axes = text.replace(
        "[plot]",
        '[[axes]]\nname = "N"\nkey = "duration_s"\nvalues = [4.0, 5.0]\n\n[plot]',
    )
    with pytest.raises(ExperimentError, match="axis 'N' has 2 values"):
        load(two_axes)
    assert load('tables = ["fct"]\n' + text).tables == ("fct", "probes", "flows", "groups")
