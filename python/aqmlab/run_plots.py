"""The figure of one run: bottleneck queue, AQM state, traced cwnds and per-flow throughput.

    from aqmlab.run_plots import plot_run
    plot_run(aqmlab.RunResult.read("results/s1-red"), "figs")   # figs/run.png, figs/run.svg

The figures go into a folder aqmlab marks as its own (`.aqmlab.json`, kind `plot`): a new or
empty folder, or one that already holds aqmlab figures, whose files of the same name are
replaced. Anything else is refused, so no file aqmlab did not write is overwritten.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from .outdir import check_target, open_resumable  # noqa: E402
from .plots import _save, display  # noqa: E402
from .result import RunResult  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

PLOT_KIND = "plot"
"""The marker kind of a folder of run figures."""

QUEUE_STATE = {"aqm_q_avg": "averaged queue (q_avg)", "aqm_q_target_virtual": "virtual target"}
"""AQM state columns in packets, drawn over the queue."""

PROBABILITY_STATE = {"aqm_p": "drop probability p", "aqm_p_max": "p_max"}
"""AQM state columns that are probabilities."""

MAX_BARS = 60
"""Up to this many flows the throughput panel has one bar per flow; above, a ranked line."""

MAX_CWND_LEGEND = 8
"""Most traced flows named in the cwnd legend."""


def _scenario(result: RunResult) -> dict[str, Any]:
    """The run's resolved scenario as a dict (empty when the text cannot be parsed)."""
    try:
        return tomllib.loads(result.scenario_text)
    except tomllib.TOMLDecodeError:
        return {}


def _target(scenario: dict[str, Any]) -> float | None:
    measure = scenario.get("measure")
    value = measure.get("target_queue_pkts") if isinstance(measure, dict) else None
    return float(value) if isinstance(value, (int, float)) else None


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _title(result: RunResult, scenario: dict[str, Any]) -> str:
    """Scenario, AQM, flows and seed; then the window and the run's main metrics."""
    s = result.summary_dict
    head = (
        f"{scenario.get('name') or 'run'}: {display(s.get('aqm', '?'))}, "
        f"{s.get('flows_total', '?')} flows, seed {result.seed}"
    )
    parts = [
        ("avg queue", "avg_queue_pkts", 1.0, "{:.1f} pkts"),
        ("drop rate", "drop_rate", 100.0, "{:.2f} %"),
        ("throughput", "throughput_mbps", 1.0, "{:.2f} Mb/s"),
        ("delay", "delay_mean_ms", 1.0, "{:.1f} ms"),
    ]
    metrics = ", ".join(
        f"{label} {fmt.format(s[key] * scale)}"
        for label, key, scale, fmt in parts
        if _finite(s.get(key))
    )
    return f"{head}\nwindow {s['window_start_s']:g}–{s['window_end_s']:g} s: {metrics}"


def _shade_window(ax, result: RunResult, label: str | None = None) -> None:
    s = result.summary_dict
    ax.axvspan(s["window_start_s"], s["window_end_s"], color="0.92", zorder=0, label=label)


def _no_data(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_yticks([])


def _draw_queue(ax, result: RunResult, target: float | None) -> None:
    ts = result.timeseries
    _shade_window(ax, result, "measurement window")
    ax.plot(ts["t_s"], ts["queue_pkts"], lw=0.5, color="tab:blue", alpha=0.7, label="queue")
    for (column, label), color in zip(QUEUE_STATE.items(), ("tab:red", "tab:green")):
        if column in ts:
            ax.plot(ts["t_s"], ts[column], lw=1.0, color=color, label=label)
    if target is not None:
        ax.axhline(target, color="black", ls="--", lw=1, label=f"target ({target:g} pkts)")
    ax.set_ylabel("queue length (packets)")
    ax.set_ylim(bottom=0)
    ax.set_title("bottleneck queue", fontsize=10)
    ax.legend(loc="upper right", fontsize=8)


def _draw_state(ax, result: RunResult) -> None:
    ts = result.timeseries
    probs = [c for c in PROBABILITY_STATE if c in ts]
    delays = sorted(c for c in ts.columns if c.startswith("aqm_") and c.endswith("_ms"))
    ax.set_title("AQM state", fontsize=10)
    if not probs and not delays:
        _no_data(ax, f"{display(result.summary_dict.get('aqm', 'this AQM'))} keeps no state")
        return
    _shade_window(ax, result)
    lines = []
    if probs:
        for column, color in zip(probs, ("tab:purple", "tab:orange")):
            label = PROBABILITY_STATE[column]
            lines += ax.plot(ts["t_s"], ts[column], lw=1.0, color=color, label=label)
        ax.set_ylabel("probability")
        ax.set_ylim(bottom=0)
    delay_ax = ax.twinx() if probs and delays else ax
    for column, color in zip(delays, ("tab:brown", "tab:olive", "tab:cyan")):
        label = column[len("aqm_") : -len("_ms")].replace("_", " ")
        lines += delay_ax.plot(
            ts["t_s"], ts[column], lw=0.8, ls="--" if probs else "-", color=color, label=label
        )
    if delays:
        delay_ax.set_ylabel("delay (ms)")
        delay_ax.set_ylim(bottom=0)
    ax.legend(lines, [line.get_label() for line in lines], loc="upper right", fontsize=8)


def _draw_cwnd(ax, result: RunResult) -> None:
    cwnd = result.cwnd
    flows = sorted(cwnd["flow"].unique()) if len(cwnd) else []
    traced = f"flow {flows[0]}" if len(flows) == 1 else f"{len(flows)} traced flows"
    ax.set_title(f"congestion window of {traced}", fontsize=10)
    if not flows:
        _no_data(ax, "no flow traced (measure.cwnd_flows)")
        return
    _shade_window(ax, result)
    for flow in flows:
        sub = cwnd[cwnd["flow"] == flow]
        ax.plot(sub["t_s"], sub["cwnd_pkts"], lw=0.8, label=f"flow {flow}")
    ax.set_ylabel("cwnd (packets)")
    ax.set_ylim(bottom=0)
    if len(flows) <= MAX_CWND_LEGEND:
        ax.legend(loc="upper right", fontsize=8)


def _draw_throughput(ax, result: RunResult) -> None:
    flows = result.flows
    rates = flows.dropna(subset=["throughput_mbps"]) if len(flows) else flows
    jain = result.summary_dict.get("jain_fairness")
    fairness = f" (Jain's index {jain:.3f})" if _finite(jain) else ""
    ax.set_title(f"per-flow throughput in the window{fairness}", fontsize=10)
    if rates.empty:
        _no_data(ax, "no flow active in the window")
        return
    values = rates["throughput_mbps"].to_numpy(dtype=float)
    if len(rates) <= MAX_BARS:
        ax.bar(rates["flow"], values, color="tab:gray", width=0.8)
        ax.set_xlabel("flow")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        ranked = np.sort(values)[::-1]
        ax.plot(np.arange(1, len(ranked) + 1), ranked, color="tab:gray", lw=1.4)
        ax.set_xlabel("flows ranked by throughput")
    mean = float(np.mean(values))
    ax.axhline(mean, color="black", ls="--", lw=1, label=f"mean {mean:.3g} Mb/s")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right", fontsize=8)


def plot_run(
    result: RunResult, out_dir: str | os.PathLike[str], stem: str = "run", option: str = "out_dir"
) -> list[Path]:
    """Draw `result` as `<stem>.png` and `<stem>.svg` in `out_dir` (created if missing; see
    `aqmlab.outdir`: a new or empty folder, or one of aqmlab run figures), each written under
    a temporary name and renamed. Four panels:
    the bottleneck queue with the AQM's averaged queue and the target, the AQM's probability
    and delay state, the cwnd of the traced flows (time panels shade the measurement window)
    and the throughput of each flow. Returns the paths written."""
    out_dir = check_target(out_dir, PLOT_KIND, option=option)
    scenario = _scenario(result)
    fig = plt.figure(figsize=(13, 8.5))
    try:
        ax_queue = fig.add_subplot(2, 2, 1)
        ax_state = fig.add_subplot(2, 2, 2, sharex=ax_queue)
        ax_cwnd = fig.add_subplot(2, 2, 3, sharex=ax_queue)
        ax_rate = fig.add_subplot(2, 2, 4)
        _draw_queue(ax_queue, result, _target(scenario))
        _draw_state(ax_state, result)
        _draw_cwnd(ax_cwnd, result)
        _draw_throughput(ax_rate, result)
        for ax in (ax_queue, ax_state, ax_cwnd):
            ax.set_xlabel("time (s)")
            ax.set_xlim(0, float(result.summary_dict.get("duration_s", ax.get_xlim()[1])))
        for ax in (ax_queue, ax_state, ax_cwnd, ax_rate):
            ax.grid(True, alpha=0.3)
        fig.suptitle(_title(result, scenario), fontsize=11)
        fig.tight_layout()
        return _save(fig, open_resumable(out_dir, PLOT_KIND, option=option), stem)
    finally:
        plt.close(fig)
