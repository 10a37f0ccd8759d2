"""The figure of one run: bottleneck queue, AQM state, traced cwnds and per-flow throughput.

    from aqmlab.present.run_plots import plot_run
    plot_run(aqmlab.RunResult.read("results/s1-red"), "figs")   # figs/run.png, figs/run.svg

The figures go into a folder inside the run (listed in the run's marker) or into a folder
aqmlab marks as its own (`.aqmlab.jsonl`, kind `plot`): a new or empty folder, or one that
already holds aqmlab figures, whose files of the same name are replaced. Anything else is
refused, so no file aqmlab did not write is overwritten (`aqmlab.engine.outdir`).
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
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ..engine.outdir import check_target, open_resumable  # noqa: E402
from ..engine.result import RunResult  # noqa: E402
from .plots import display, save_figure  # noqa: E402

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

P_MEAN_S = 1.0
"""Width of the centred running mean drawn over the sampled drop probability (at least ten
samples)."""

THRESHOLD_HEADROOM = 1.5
"""A threshold above this many times the highest queue value drawn is named in the legend
only, so that it does not squeeze the traces into the bottom of the panel."""

LEGEND = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "fontsize": 8, "borderaxespad": 0}
"""Legends sit outside the panel, to the right of its data."""

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
    """The scenario's `measure.target_queue_pkts`, or None when it sets none."""
    measure = scenario.get("measure")
    value = measure.get("target_queue_pkts") if isinstance(measure, dict) else None
    return float(value) if isinstance(value, (int, float)) else None


def _finite(value: Any) -> bool:
    """Whether `value` is a finite number."""
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
    """Shade the measurement window of a time panel."""
    s = result.summary_dict
    ax.axvspan(s["window_start_s"], s["window_end_s"], color="0.92", zorder=0, label=label)


def _no_data(ax, text: str) -> None:
    """Write `text` in the middle of an empty panel."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_yticks([])


def _link_of(topology: dict[str, Any], port: Any) -> tuple[dict[str, Any], bool] | None:
    """The link whose port `port` ("A->C") is, and whether it is the link's reverse port; None
    when none is (a dumbbell, or a summary without a port)."""
    links, routers = topology.get("links"), topology.get("routers")
    if not isinstance(links, list) or not isinstance(port, str) or "->" not in port:
        return None
    src, dst = port.split("->", 1)
    for i, link in enumerate(links):
        if not isinstance(link, dict):
            continue
        ends = (link.get("from"), link.get("to"))
        if ends == (None, None) and isinstance(routers, list) and i + 1 < len(routers):
            ends = (routers[i], routers[i + 1])  # a chain: link i joins routers i and i + 1
        if ends == (src, dst):
            return link, False
        if ends == (dst, src):
            return link, True
    return None


def _port_queue(scenario: dict[str, Any], port: Any = None) -> dict[str, Any]:
    """The `[queue]` table of the port the time series follows (`port`, the summary's, such
    as "A->C"): `[queue]` itself on a dumbbell; on a chain or a network, `[queue]` amended one
    level deep by that link's `queue` table (`reverse_queue` for its reverse port)."""
    queue = scenario.get("queue")
    queue = dict(queue) if isinstance(queue, dict) else {}
    topology = scenario.get("topology")
    found = _link_of(topology, port) if isinstance(topology, dict) else None
    amend = None
    if found is not None:
        link, reverse = found
        amend = link.get("reverse_queue" if reverse else "queue")
    for key, value in amend.items() if isinstance(amend, dict) else ():
        base = queue.get(key)
        queue[key] = (
            {**base, **value} if isinstance(base, dict) and isinstance(value, dict) else value
        )
    return queue


def thresholds(
    scenario: dict[str, Any], aqm: Any, port: Any = None
) -> list[tuple[str, float | None]]:
    """The RED-family thresholds of the run's AQM at `port` (the summary's) as (label,
    packets): `q_min_pkts` and `q_max_pkts` of its `[queue.<aqm>]` table when the table has
    both. ARED's 0 means
    computed at start-up, which the run does not report: then one (note, None), named in the
    legend and not drawn. ABetaRED and DBetaRED take no thresholds in their tables; neither
    do the other AQMs."""
    queue = _port_queue(scenario, port)
    if not isinstance(aqm, str) or queue.get("aqm") != aqm:
        return []
    params = queue.get(aqm)
    if not isinstance(params, dict):
        return []
    q_min, q_max = params.get("q_min_pkts"), params.get("q_max_pkts")
    if not (_finite(q_min) and _finite(q_max)):
        return []
    if q_max <= 0:
        return [("q_min, q_max: automatic (0), not reported by the run", None)]
    gentle = f" (gentle: p reaches 1 at {2 * q_max:g})" if params.get("gentle") is True else ""
    return [
        (f"q_min = {q_min:g} pkts", float(q_min)),
        (f"q_max = {q_max:g} pkts{gentle}", float(q_max)),
    ]


def _draw_queue(
    ax, result: RunResult, target: float | None, lines: list[tuple[str, float | None]]
) -> None:
    """The sampled queue, the AQM's averaged queue, the target and the AQM's thresholds."""
    ts = result.timeseries
    _shade_window(ax, result, "measurement window")
    ax.plot(ts["t_s"], ts["queue_pkts"], lw=0.5, color="tab:blue", alpha=0.7, label="queue")
    for (column, label), color in zip(QUEUE_STATE.items(), ("tab:red", "tab:green")):
        if column in ts:
            ax.plot(ts["t_s"], ts[column], lw=1.0, color=color, label=label)
    if target is not None:
        ax.axhline(target, color="black", ls="--", lw=1, label=f"target ({target:g} pkts)")
    traced = [ts[c].to_numpy(dtype=float) for c in ("queue_pkts", *QUEUE_STATE) if c in ts]
    finite = np.concatenate(traced) if traced else np.array([])
    finite = finite[np.isfinite(finite)]
    data_max = max(float(finite.max()) if finite.size else 0.0, target or 0.0)
    top = None
    for (label, value), color in zip(lines, ("tab:gray", "0.15")):
        if value is None:
            ax.plot([], [], ls="none", label=label)
        elif data_max > 0 and value > THRESHOLD_HEADROOM * data_max:
            top = data_max * 1.05
            ax.plot([], [], color=color, ls="-.", lw=1.2, label=f"{label}: above the panel")
        else:
            ax.axhline(value, color=color, ls="-.", lw=1.2, label=label)
    ax.set_ylabel("queue length (packets)")
    ax.set_ylim(0, top)
    ax.set_title("bottleneck queue", fontsize=10)
    ax.legend(**LEGEND)


def _running_mean(t_s: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The centred running mean of a sampled series over `P_MEAN_S` (at least ten samples),
    NaN samples left out of each mean; returns (mean, window in s, sample step in s)."""
    step = float(np.median(np.diff(t_s))) if len(t_s) > 1 else 0.0
    if not step > 0:
        return values.astype(float), 0.0, step
    k = max(10, int(round(P_MEAN_S / step)))
    mean = pd.Series(values, dtype=float).rolling(k, center=True, min_periods=1).mean()
    return mean.to_numpy(), k * step, step


def _draw_probability(ax, ts: pd.DataFrame) -> list:
    """The drop probability as a thin line per sample under its running mean, and p_max
    (slowly adapted, drawn as is); returns the lines for the legend."""
    lines = []
    if "aqm_p" in ts:
        t = ts["t_s"].to_numpy(dtype=float)
        p = ts["aqm_p"].to_numpy(dtype=float)
        mean, window, step = _running_mean(t, p)
        missing = int(np.count_nonzero(~np.isfinite(p)))
        gaps = f", {missing} samples undefined (gaps)" if missing else ""
        lines += ax.plot(
            t,
            p,
            lw=0.3,
            color="tab:purple",
            alpha=0.45,
            label=f"drop probability p, every {1000 * step:.3g} ms sample{gaps}",
        )
        if window > 0:
            lines += ax.plot(
                t,
                mean,
                lw=1.4,
                color="indigo",
                label=f"p, centred running mean over {window:.3g} s",
            )
    if "aqm_p_max" in ts:
        lines += ax.plot(ts["t_s"], ts["aqm_p_max"], lw=1.2, color="tab:orange", label="p_max")
    return lines


def _draw_state(ax, result: RunResult) -> None:
    """The AQM's drop probability (and adapted p_max) and the delays it tracks."""
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
        lines += _draw_probability(ax, ts)
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
    legend = dict(LEGEND, bbox_to_anchor=(1.12, 1.0)) if delay_ax is not ax else LEGEND
    box = ax.legend(lines, [line.get_label() for line in lines], **legend)
    for handle in getattr(box, "legend_handles", []):
        if hasattr(handle, "set_linewidth"):  # the thin per-sample line, legible in the key
            handle.set_linewidth(max(1.0, handle.get_linewidth()))


def _draw_cwnd(ax, result: RunResult) -> None:
    """The congestion window of each traced flow."""
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
        ax.legend(**LEGEND)


def _draw_throughput(ax, result: RunResult) -> None:
    """Each flow's throughput in the window (bars, or ranked above `MAX_BARS` flows)."""
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
    ax.legend(**LEGEND)


def plot_run(
    result: RunResult, out_dir: str | os.PathLike[str], stem: str = "run", option: str = "out_dir"
) -> list[Path]:
    """Draw `result` as `<stem>.png` and `<stem>.svg` in `out_dir` (created if missing; see
    `aqmlab.engine.outdir`: a new or empty folder, or one of aqmlab run figures), each written under
    a temporary name and renamed. Four panels:
    the bottleneck queue with the AQM's averaged queue and the target, the AQM's probability
    and delay state, the cwnd of the traced flows (time panels shade the measurement window)
    and the throughput of each flow. Returns the paths written."""
    out_dir = check_target(out_dir, PLOT_KIND, option=option)
    scenario = _scenario(result)
    fig = plt.figure(figsize=(16, 9), layout="constrained")
    try:
        ax_queue = fig.add_subplot(2, 2, 1)
        ax_state = fig.add_subplot(2, 2, 2, sharex=ax_queue)
        ax_cwnd = fig.add_subplot(2, 2, 3, sharex=ax_queue)
        ax_rate = fig.add_subplot(2, 2, 4)
        lines = thresholds(
            scenario, result.summary_dict.get("aqm"), result.summary_dict.get("port")
        )
        _draw_queue(ax_queue, result, _target(scenario), lines)
        _draw_state(ax_state, result)
        _draw_cwnd(ax_cwnd, result)
        _draw_throughput(ax_rate, result)
        for ax in (ax_queue, ax_state, ax_cwnd):
            ax.set_xlabel("time (s)")
            ax.set_xlim(0, float(result.summary_dict.get("duration_s", ax.get_xlim()[1])))
        for ax in (ax_queue, ax_state, ax_cwnd, ax_rate):
            ax.grid(True, alpha=0.3)
        fig.suptitle(_title(result, scenario), fontsize=11)
        return save_figure(fig, open_resumable(out_dir, PLOT_KIND, option=option), stem)
    finally:
        plt.close(fig)
