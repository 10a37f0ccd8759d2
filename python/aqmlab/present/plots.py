"""Figures of a sweep in the layout of the paper's figures, as PNG and SVG (matplotlib, Agg)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..sweeps.experiment import Experiment, format_value, window_phrase  # noqa: E402
from .coexistence_plots import plot_coexistence  # noqa: E402
from .common import AQM_NAMES, SAVE_OPTIONS, display, quick_note, save_figure  # noqa: E402, F401
from .fq_plots import plot_latency  # noqa: E402

METRIC_LABELS: dict[str, tuple[str, float]] = {
    "avg_queue_pkts": ("average queue length (packets)", 1.0),
    "avg_queue_aqm_pkts": ("AQM's averaged queue (packets)", 1.0),
    "std_queue_pkts": ("queue length std (packets)", 1.0),
    "drop_rate": ("packet drop rate (%)", 100.0),
    "throughput_mbps": ("end-to-end throughput (Mb/s)", 1.0),
    "delay_mean_ms": ("end-to-end delay (ms)", 1.0),
    "jitter_ms": ("jitter (ms)", 1.0),
    "link_efficiency": ("link efficiency (%)", 100.0),
    "jain_fairness": ("Jain's fairness index", 1.0),
    "probe_rtt_mean_ms": ("mean probe RTT (ms)", 1.0),
    "probe_rtt_p50_ms": ("median probe RTT (ms)", 1.0),
    "probe_rtt_p90_ms": ("90th-percentile probe RTT (ms)", 1.0),
    "probe_rtt_p99_ms": ("99th-percentile probe RTT (ms)", 1.0),
}
"""Axis label and scale factor of the summary metrics a figure may show."""

QUEUE_METRICS = {"avg_queue_pkts", "avg_queue_aqm_pkts"}


def metric_label(metric: str) -> tuple[str, float]:
    """The axis label and scale factor of a summary metric."""
    return METRIC_LABELS.get(metric, (metric, 1.0))


def seed_means(df: pd.DataFrame, keys: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Mean of `metrics` over the seeds of each combination of `keys`."""
    keys = list(keys)
    if not keys:
        return df[list(metrics)].mean().to_frame().T
    return df.groupby(keys, sort=False, dropna=False)[list(metrics)].mean().reset_index()


def _ordered(values: Sequence[Any], df_values: pd.Series) -> list[Any]:
    """The axis values in file order, keeping only those present in the data."""
    present = set(df_values.tolist())
    return [v for v in values if v in present]


def _axis_values(experiment: Experiment, name: str | None, df: pd.DataFrame) -> list[Any]:
    """The values of axis `name` present in `df`, in file order ([None] without an axis)."""
    if name is None:
        return [None]
    axis = experiment.axis(name)
    values = [axis.column_values(v)[name] for v in axis.values] if axis else []
    return _ordered(values, df[name]) if name in df else []


ZERO_REACH = 0.5
"""A y axis whose automatic range leaves out 0 is extended to 0 when the data would still
fill at least this share of its height; otherwise it is marked as zoomed."""


def mark_zoomed_y(ax, reach: float = ZERO_REACH) -> bool:
    """Make a linear y axis either include 0 or say that it does not. When extending the
    range to 0 leaves the data at least `reach` of the height, the axis is extended; else
    it gets an axis-break mark (two short slashes across the spine at the cut end) and a
    note under its label. Returns whether it marked the axis. Call it once the panel's data
    are drawn: it fixes the current limits."""
    if ax.get_yscale() != "linear":
        return False
    lo, hi = ax.get_ylim()
    if lo <= 0 <= hi or not (math.isfinite(lo) and math.isfinite(hi)):
        return False
    if (hi - lo) >= reach * max(abs(lo), abs(hi)):
        ax.set_ylim(min(lo, 0.0), max(hi, 0.0))
        return False
    ax.set_ylim(lo, hi)
    y = 0.0 if lo > 0 else 1.0
    d = 0.012
    for dy in (-0.012, 0.012):
        ax.plot(
            [-d, d],
            [y + dy - d, y + dy + d],
            transform=ax.transAxes,
            color="black",
            linewidth=1.0,
            clip_on=False,
            zorder=5,
        )
    note = "axis does not start at 0" if lo > 0 else "axis does not reach 0"
    ax.set_ylabel(f"{ax.get_ylabel()}\n({note})")
    return True


def plot_lines(
    experiment: Experiment, df: pd.DataFrame, out_dir: str | os.PathLike[str], stem: str
) -> list[Path]:
    """Metric against the swept parameter, one line per value of `plot.lines`, one column
    of panels per value of `plot.panels` (one row per metric), or a grid of metrics when
    there are no panels. Each point is the mean over the seeds."""
    spec = experiment.plot
    metrics = [m for m in spec.y if m in df.columns]
    keys = [k for k in (spec.panels, spec.lines, spec.x) if k is not None]
    means = seed_means(df, keys, metrics)
    panels = _axis_values(experiment, spec.panels, means)
    lines = _axis_values(experiment, spec.lines, means)
    x_axis = experiment.axis(spec.x)
    if spec.panels is not None:
        nrows, ncols = len(metrics), len(panels)
        slots = [(r, c) for r in range(nrows) for c in range(ncols)]
    else:
        ncols = min(3, len(metrics))
        nrows = math.ceil(len(metrics) / ncols)
        slots = [(i // ncols, i % ncols) for i in range(len(metrics))]
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.3 * nrows + 0.9), squeeze=False)
    for (r, c), ax in np.ndenumerate(axes):
        if (r, c) not in slots:
            ax.set_visible(False)
    markers = "osD^vP*Xh<>"
    for i_metric, metric in enumerate(metrics):
        label, scale = metric_label(metric)
        for i_panel, panel in enumerate(panels):
            r, c = (i_metric, i_panel) if spec.panels is not None else slots[i_metric]
            ax = axes[r][c]
            sub = means if panel is None else means[means[spec.panels] == panel]
            for i_line, line in enumerate(lines):
                data = sub if line is None else sub[sub[spec.lines] == line]
                data = data.sort_values(spec.x)
                name = None
                if line is not None:
                    name = display(line)
                    line_axis = experiment.axis(spec.lines)
                    if spec.lines != "aqm" and line_axis is not None:
                        name = f"{line_axis.label} = {name}"
                ax.plot(
                    data[spec.x],
                    data[metric] * scale,
                    marker=markers[i_line % len(markers)],
                    markersize=4,
                    linewidth=1.4,
                    label=name,
                )
            if spec.target is not None and metric in QUEUE_METRICS:
                ax.axhline(
                    spec.target, color="black", linestyle="--", linewidth=1, label="q_target"
                )
            if spec.x_log:
                ax.set_xscale("log")
            _x_ticks(ax, means[spec.x])
            ax.set_xlabel(x_axis.label if x_axis else spec.x)
            ax.set_ylabel(label)
            mark_zoomed_y(ax)
            ax.grid(True, alpha=0.3)
            if panel is not None:
                panel_axis = experiment.axis(spec.panels)
                ax.set_title(f"{panel_axis.label} = {display(panel)}", fontsize=10)
    handles, names = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, names, loc="lower center", ncol=min(len(names), 6), fontsize=9)
    seeds = df["seed"].nunique() if "seed" in df else 1
    title = [experiment.display_title(df), quick_note(experiment)]
    title.append(f"(mean over {seeds} seed{'s' if seeds != 1 else ''})")
    fig.suptitle("\n".join(line for line in title if line))
    fig.tight_layout(rect=(0, 0.06 if handles else 0, 1, 1))
    return save_figure(fig, Path(out_dir), stem)


def _x_ticks(ax, values: pd.Series) -> None:
    """Tick marks at the swept values themselves (up to 8 of them)."""
    ticks = sorted(set(values.tolist()))
    if 1 < len(ticks) <= 8 and all(isinstance(t, (int, float, np.number)) for t in ticks):
        ax.set_xticks(ticks)
        ax.set_xticklabels([format_value(float(t)) for t in ticks], fontsize=8)
        ax.minorticks_off()


def moving_average(t_s: np.ndarray, values: np.ndarray, window_s: float) -> np.ndarray:
    """Trailing moving average over the last `window_s` seconds (fewer samples at the
    start), for samples taken at a fixed step."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return values.copy()
    step = float(np.median(np.diff(t_s)))
    k = max(1, int(round(window_s / step)))
    return pd.Series(values).rolling(k, min_periods=1).mean().to_numpy()


def plot_traces(
    experiment: Experiment,
    df: pd.DataFrame,
    traces: Mapping[Any, pd.DataFrame],
    out_dir: str | os.PathLike[str],
    stem: str,
) -> list[Path]:
    """One panel per value of `plot.lines` (the AQM): the instantaneous queue and its
    trailing moving average; the last panel compares each value's `plot.y[0]` as bars."""
    spec = experiment.plot
    values = [v for v in _axis_values(experiment, spec.lines, df) if v in traces]
    n = len(values) + 1
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.2 * nrows + 0.6), squeeze=False)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.set_visible(False)
    y_max = max((float(traces[v]["queue_pkts"].max()) for v in values), default=1.0)
    for ax, value in zip(flat, values):
        ts = traces[value]
        t, q = ts["t_s"].to_numpy(), ts["queue_pkts"].to_numpy()
        ax.plot(t, q, linewidth=0.4, color="tab:blue", alpha=0.55, label="queue length")
        ma = moving_average(t, q, spec.moving_average_s)
        ax.plot(
            t,
            ma,
            linewidth=1.8,
            color="tab:red",
            label=f"moving average ({format_value(spec.moving_average_s)} s)",
        )
        if spec.target is not None:
            ax.axhline(spec.target, color="black", linestyle="--", linewidth=1, label="q_target")
        ax.set_title(display(value), fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue length (packets)")
        ax.set_ylim(0, y_max * 1.05)
        ax.grid(True, alpha=0.3)
    ax = flat[len(values)]
    metric = spec.y[0]
    label, scale = metric_label(metric)
    means = seed_means(df, [spec.lines], [metric])
    heights = [float(means.loc[means[spec.lines] == v, metric].iloc[0]) * scale for v in values]
    ax.bar([display(v) for v in values], heights, color="tab:gray")
    for i, h in enumerate(heights):
        ax.annotate(f"{h:.0f}", (i, h), ha="center", va="bottom", fontsize=8)
    if spec.target is not None and metric in QUEUE_METRICS:
        ax.axhline(spec.target, color="black", linestyle="--", linewidth=1)
    ax.set_ylabel(label)
    mark_zoomed_y(ax)
    ax.set_title(f"average over the {window_phrase(df)}", fontsize=10)
    ax.tick_params(axis="x", labelrotation=30)
    ax.grid(True, axis="y", alpha=0.3)
    handles, names = flat[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, names, loc="lower center", ncol=len(names), fontsize=9)
    quick = quick_note(experiment)
    fig.suptitle(experiment.display_title(df) + (f"\n{quick}" if quick else ""))
    fig.tight_layout(rect=(0, 0.05 if handles else 0, 1, 1))
    return save_figure(fig, Path(out_dir), stem)


def plot_experiment(
    experiment: Experiment,
    df: pd.DataFrame,
    out_dir: str | os.PathLike[str],
    stem: str,
    traces: Mapping[Any, pd.DataFrame] | None = None,
    tables: Mapping[str, pd.DataFrame] | None = None,
) -> list[Path]:
    """The experiment's figure as `<stem>.png` and `<stem>.svg` (for `plot.kind = "latency"`,
    three figures: `aqmlab.present.fq_plots`; for `"coexistence"`, those of
    `aqmlab.present.coexistence_plots`); returns the paths. `traces` are the time
    series of a traces plot (`sweeps.grid.load_traces`) or, keyed by run id, of a coexistence
    plot (`sweeps.grid.load_point_traces`), `tables` the kept per-run tables
    (`sweeps.grid.load_tables`) a latency plot draws from."""
    if experiment.plot.kind == "traces":
        return plot_traces(experiment, df, traces or {}, out_dir, stem)
    if experiment.plot.kind == "latency":
        return plot_latency(experiment, df, tables or {}, out_dir, stem)
    if experiment.plot.kind == "coexistence":
        return plot_coexistence(experiment, df, tables or {}, traces or {}, out_dir, stem)
    return plot_lines(experiment, df, out_dir, stem)
