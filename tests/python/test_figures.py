"""What the figures show: the run figure's thresholds, drop-probability mean and legends, the
zoomed-axis mark and quick titles of sweep figures, the bridge's error bars cut at 0 and the
stability map's legend and title. Each figure is caught before it is saved and inspected."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import aqmlab
from aqmlab import model
from aqmlab.engine import outdir
from aqmlab.model import bridge as model_bridge
from aqmlab.model import plots as model_plots
from aqmlab.model.plots import _drop_title, clipped_error_bars, plot_stability_map
from aqmlab.present import plots, run_plots
from aqmlab.present.plots import mark_zoomed_y, plot_experiment, quick_note
from aqmlab.present.run_plots import plot_run, thresholds
from aqmlab.sweeps.experiment import Experiment
from conftest import SCENARIO1


@pytest.fixture
def caught(monkeypatch):
    """Figures handed to `save_figure`, drawn and kept for inspection (and still written)."""
    figures = []
    original = plots.save_figure

    def keep(fig, out_dir, stem):
        """Draw and keep `fig`, then save it as `save_figure` does."""
        fig.canvas.draw()
        figures.append(fig)
        return original(fig, out_dir, stem)

    for module in (plots, run_plots, model_plots):
        monkeypatch.setattr(module, "save_figure", keep)
    return figures


def _run(aqm: str, **sets):
    """A short run of scenario 1 (10 s, 20 flows) with `aqm`."""
    sc = aqmlab.Scenario.load(SCENARIO1).with_(
        {"queue.aqm": aqm, "duration_s": 10.0, "traffic.schedule.flows": 20, **sets}
    )
    return aqmlab.run(sc)


def _legend(ax) -> list[str]:
    """The texts of the legend of `ax`."""
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _horizontal_at(ax, y: float) -> bool:
    """Whether `ax` holds a horizontal line (axhline) at `y`."""
    return any(
        len(line.get_ydata()) == 2 and all(float(v) == y for v in line.get_ydata())
        for line in ax.get_lines()
    )


def _outside(fig, ax) -> bool:
    """Whether the legend of `ax` lies beside the panel, covering none of its data."""
    canvas = FigureCanvasAgg(fig)  # closed figures lose their pyplot canvas
    canvas.draw()
    renderer = canvas.get_renderer()
    box = ax.get_legend().get_window_extent(renderer)
    return box.x0 >= ax.get_window_extent(renderer).x1


@pytest.fixture(scope="module")
def red_run():
    return _run("red")


def test_red_run_figure(red_run, tmp_path, caught):
    plot_run(red_run, tmp_path / "a", stem="red")
    fig = caught[0]
    queue, state = fig.axes[0], fig.axes[1]
    assert "q_min = 100 pkts" in _legend(queue) and "q_max = 400 pkts" in _legend(queue)
    assert _horizontal_at(queue, 100.0) and _horizontal_at(queue, 400.0)
    labels = _legend(state)
    assert any("every 10 ms sample" in t for t in labels)
    assert any("running mean over 1 s" in t for t in labels)
    raw, mean = (line.get_ydata() for line in state.get_lines()[:2])
    assert np.nanstd(np.asarray(mean, dtype=float)) < np.nanstd(np.asarray(raw, dtype=float))
    assert all(_outside(fig, ax) for ax in fig.axes if ax.get_legend() is not None)
    assert not any(np.isnan(np.asarray(mean, dtype=float)))


def test_run_figure_is_byte_identical(red_run, tmp_path):
    first = plot_run(red_run, tmp_path / "a", stem="red")
    second = plot_run(red_run, tmp_path / "b", stem="red")
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes()


def test_ared_automatic_thresholds_are_named_not_drawn(tmp_path, caught):
    plot_run(_run("ared"), tmp_path / "a", stem="ared")
    queue = caught[0].axes[0]
    assert any("automatic" in t for t in _legend(queue))
    assert not any(t.startswith("q_min =") for t in _legend(queue))


def test_threshold_far_above_the_queue_is_named_above_the_panel(tmp_path, caught):
    plot_run(_run("betared"), tmp_path / "a", stem="betared")
    queue = caught[0].axes[0]
    assert "q_max = 1000 pkts: above the panel" in _legend(queue)
    assert queue.get_ylim()[1] < 1000.0


def test_thresholds_of_the_described_port_of_a_chain_or_network():
    base = {"aqm": "droptail", "red": {"q_min_pkts": 5.0, "q_max_pkts": 15.0, "gentle": True}}
    links = [{"queue": {"aqm": "red", "red": {"q_max_pkts": 50.0}}}, {}]
    chain = {"queue": base, "topology": {"kind": "chain", "routers": ["B", "C", "D"]}}
    chain["topology"]["links"] = links
    assert [v for _, v in thresholds(chain, "red", "B->C")] == [5.0, 50.0]
    assert "gentle: p reaches 1 at 100" in thresholds(chain, "red", "B->C")[1][0]
    assert thresholds(chain, "red", "C->D") == []  # the second link runs drop tail
    reverse = {"from": "A", "to": "C", "reverse_queue": {"aqm": "red"}, "queue": {}}
    network = {"queue": base, "topology": {"kind": "network", "links": [{}, reverse]}}
    assert [v for _, v in thresholds(network, "red", "C->A")] == [5.0, 15.0]
    assert thresholds(network, "red", "A->C") == []
    assert thresholds({"queue": base}, "red") == []  # the dumbbell runs drop tail
    assert thresholds({"queue": {**base, "aqm": "abetared"}}, "abetared") == []


@pytest.mark.parametrize(
    ("low", "high", "marked", "to_zero"),
    [(46.2, 47.4, True, False), (4.4, 24.4, False, True), (-3.0, 5.0, False, False)],
)
def test_zoomed_axis_is_marked_or_extended_to_zero(low, high, marked, to_zero):
    fig, ax = plt.subplots()
    try:
        ax.plot([0, 1], [low, high])
        ax.set_ylabel("throughput (Mb/s)")
        lo = ax.get_ylim()[0]
        assert mark_zoomed_y(ax) is marked
        assert ("axis does not start at 0" in ax.get_ylabel()) is marked
        assert ax.get_ylim()[0] == (0.0 if to_zero else lo)
    finally:
        plt.close(fig)


def _experiment(tmp_path, quick: bool) -> Experiment:
    """A three-point experiment on scenario 1 with a [quick] table (two points, one seed)."""
    path = tmp_path / "exp.toml"
    path.write_text(
        f"""title = "tiny"
scenario = "{SCENARIO1.as_posix()}"
seeds = [1, 2]

[[axes]]
name = "N"
key = "traffic.schedule.flows"
values = [10, 20, 40]

[plot]
x = "N"
y = ["throughput_mbps", "drop_rate"]

[quick]
seeds = [1]
values = {{ N = [10, 40] }}

[quick.fixed]
duration_s = 20.0
""",
        encoding="utf-8",
    )
    return Experiment.load(path, quick=quick)


def _table(n_values, seeds) -> pd.DataFrame:
    """A made-up result table: throughput near 47 Mb/s (a zoomed axis), drop rate from 0."""
    rows = [
        {
            "N": n,
            "seed": s,
            "throughput_mbps": 47.0 + 0.01 * n,
            "drop_rate": 0.01 * n,
            "duration_s": 20.0,
            "window_start_s": 10.0,
            "window_end_s": 20.0,
        }
        for n in n_values
        for s in seeds
    ]
    return pd.DataFrame(rows)


def test_sweep_figure_marks_zoom_and_names_the_quick_grid(tmp_path, caught):
    exp = _experiment(tmp_path, quick=True)
    assert (
        quick_note(exp) == "quick run, reduced grid: 2 of 3 N values, 1 of 2 seeds, duration_s = 20"
    )
    first = plot_experiment(
        exp, _table([10, 40], [1]), outdir.open_resumable(tmp_path / "a", "sweep"), "q"
    )
    fig = caught[0]
    assert "quick run, reduced grid" in fig._suptitle.get_text()
    throughput, drops = fig.axes[:2]
    assert "axis does not start at 0" in throughput.get_ylabel()
    assert drops.get_ylim()[0] == 0.0 and "axis" not in drops.get_ylabel()
    second = plot_experiment(
        exp, _table([10, 40], [1]), outdir.open_resumable(tmp_path / "b", "sweep"), "q"
    )
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_full_sweep_figure_has_no_quick_note(tmp_path, caught):
    exp = _experiment(tmp_path, quick=False)
    assert quick_note(exp) == ""
    plot_experiment(
        exp, _table([10, 20, 40], [1, 2]), outdir.open_resumable(tmp_path / "a", "sweep"), "f"
    )
    assert "quick" not in caught[0]._suptitle.get_text()


def test_error_bars_stop_at_zero():
    bars = clipped_error_bars(np.array([10.0, 50.0, 0.0, np.nan]), np.array([30.0, 20.0, 5.0, 1.0]))
    assert bars[:, :3].tolist() == [[10.0, 20.0, 0.0], [30.0, 20.0, 5.0]]
    assert np.isnan(bars[0, 3])


def test_bridge_figure_bars_are_non_negative_and_labelled(tmp_path, caught):
    df = pd.DataFrame(
        {
            "sweep": ["theta"] * 3 + ["N"] * 2,
            "n_flows": [100] * 3 + [25, 100],
            "theta": [0.1, 0.3, 0.5, 0.1, 0.1],
            "avg_queue_pkts": [140.0, 60.0, 12.0, 120.0, 140.0],
            "std_queue_pkts": [60.0, 45.0, 20.0, 50.0, 60.0],
            "avg_queue_aqm_pkts": [142.0, 61.0, 14.0, 122.0, 142.0],
        }
    )
    model_bridge._plot(df, outdir.open_resumable(tmp_path / "bridge", "bridge"))
    ax = caught[0].axes[1]
    bars = ax.containers[0]
    lows = [seg[0][1] for seg in bars.lines[2][0].get_segments()]
    assert min(lows) == 0.0 and lows[0] == 80.0
    assert any("mean ± 1 std (bars cut at 0" in t for t in _legend(caught[0].axes[0]))


def test_stability_map_names_the_boundary_and_the_drop(tmp_path, caught):
    df = model.stability_map(
        "theta",
        np.linspace(0.1, 0.8, 8),
        "w",
        np.linspace(0.02, 0.4, 8),
        {"drop": "betared"},
        iterations=400,
    )
    out = outdir.open_resumable(tmp_path / "map", "plot")
    plot_stability_map(df, "theta", "w", out, title="Stability map", drop="betared")
    ax = caught[0].axes[0]
    assert ax.get_title().startswith("BetaRED: Stability map")
    assert any("|λ| = 1 at the fixed point" in t for t in _legend(ax))
    assert _drop_title("Gentle RED, p_max × w", "gentle") == "Gentle RED, p_max × w"
    assert _drop_title("Gentle RED, p_max × w", "red") == "RED: Gentle RED, p_max × w"
