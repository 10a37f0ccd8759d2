"""The latency-under-load figures of an experiment with `plot.kind = "latency"` (the layouts of
flent's RRUL plots), one line or column per value of `plot.lines` (the AQM):

- `<stem>_rtt_cdf`: the distribution of the latency probes' round-trip times, one line each;
- `<stem>_flow_throughput`: every load flow's goodput, one column each, flows of different
  groups (uploads, downloads, a UDP flow) side by side, coloured by base RTT when the flows of
  a group have different ones;
- `<stem>_goodput_latency`: total goodput against the probes' median round-trip time, one
  point each, with a line to the 99th percentile.

Probes and flows are pooled over the seeds; only probes sent inside each run's measurement
window count, as in the summary's `probe_rtt_*` columns. The tables come from the sweep's
kept per-run tables (`sweeps.grid.load_tables`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.ticker import NullFormatter

from .. import _core
from ..sweeps.experiment import Experiment, format_value, window_phrase
from .common import display, plt, quick_note, save_figure

FLOW_QUEUEING: frozenset[str] = frozenset(_core.catalog()["flow_queueing"])
"""The flow-queueing AQMs, drawn with thick solid lines."""

STEMS = ("rtt_cdf", "flow_throughput", "goodput_latency")
"""The three figures, `<stem>_<name>.png|svg`."""

LINE_STYLES = ("--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)))
MARKERS = "o^sDvP*Xh<>"


def line_values(experiment: Experiment, df: pd.DataFrame) -> list[Any]:
    """The values of the `plot.lines` axis present in `df`, in file order."""
    name = experiment.plot.lines
    axis = experiment.axis(name) if name else None
    if axis is None or name not in df:
        return []
    present = set(df[name].tolist())
    values = [axis.column_values(v)[name] for v in axis.values]
    return [v for v in values if v in present]


def windowed_probes(df: pd.DataFrame, probes: pd.DataFrame) -> pd.DataFrame:
    """The answered probes sent inside their run's measurement window (the rows the summary's
    `probe_rtt_*` columns describe), with the run's parameter columns."""
    if probes.empty:
        return probes
    windows = df[["run_id", "window_start_s", "window_end_s"]]
    merged = probes.merge(windows, on="run_id", how="inner")
    inside = (merged["t_s"] >= merged["window_start_s"]) & (merged["t_s"] <= merged["window_end_s"])
    kept = merged[inside & merged["rtt_ms"].notna()]
    return kept.drop(columns=["window_start_s", "window_end_s"])


def percentile(values: np.ndarray, p: float) -> float:
    """The p-th percentile by nearest rank (the summary's definition, docs/metrics.md)."""
    if len(values) == 0:
        return float("nan")
    return float(np.percentile(values, p, method="inverted_cdf"))


def load_groups(groups: pd.DataFrame, probes: pd.DataFrame) -> list[str]:
    """The names of the groups that carry load (probe groups left out), in scenario order."""
    if groups.empty:
        return []
    probe_groups = set(probes["group"].tolist()) if not probes.empty else set()
    rows = groups[~groups["group"].isin(probe_groups)].sort_values("group")
    return list(dict.fromkeys(rows["name"]))


def latency_points(
    experiment: Experiment,
    df: pd.DataFrame,
    probes: pd.DataFrame,
    groups: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per value of `plot.lines` and goodput: the probes' median and 99th-percentile
    RTT (pooled over seeds, inside the window), how many probes were answered, sent and lost,
    and the goodput (mean, min and max over the seeds) in the column `goodput` names: `total`
    (the summary's `throughput_mbps`, every flow but the probes) and, when more than one group
    carries load, each such group's (the per-group table's `throughput_mbps`). Without kept
    probes the RTTs are the means over seeds of the summary's `probe_rtt_p50_ms` and
    `probe_rtt_p99_ms`."""
    key = experiment.plot.lines
    groups = groups if groups is not None else pd.DataFrame()
    inside = windowed_probes(df, probes)
    names = load_groups(groups, probes)
    rows = []
    for value in line_values(experiment, df):
        runs = df[df[key] == value]
        rtt = inside[inside[key] == value]["rtt_ms"].to_numpy() if not inside.empty else []
        if len(rtt):
            p50, p99 = percentile(rtt, 50), percentile(rtt, 99)
        else:
            p50 = float(runs["probe_rtt_p50_ms"].mean())
            p99 = float(runs["probe_rtt_p99_ms"].mean())
        base = {
            key: value,
            "probe_rtt_p50_ms": p50,
            "probe_rtt_p99_ms": p99,
            "probes_answered": int(len(rtt)),
            "probes_sent": int(runs["probes_sent"].sum()),
            "probes_lost": int(runs["probes_lost"].sum()),
            "seeds": int(runs["seed"].nunique()) if "seed" in runs else 1,
        }
        series = {"total": runs["throughput_mbps"]}
        if len(names) > 1:
            mine = groups[groups[key] == value]
            series.update({n: mine[mine["name"] == n]["throughput_mbps"] for n in names})
        for name, goodput in series.items():
            rows.append(
                {
                    **base,
                    "goodput": name,
                    "goodput_mbps": float(goodput.mean()),
                    "goodput_min_mbps": float(goodput.min()),
                    "goodput_max_mbps": float(goodput.max()),
                }
            )
    return pd.DataFrame(rows)


def _ms_axis(ax, values: list[float]) -> None:
    """A log x axis of milliseconds with plain tick labels at 1-2-5 steps over `values`."""
    ax.set_xscale("log")
    finite = [v for v in values if np.isfinite(v) and v > 0]
    if not finite:
        return
    lo, hi = min(finite) / 1.15, max(finite) * 1.15
    ticks = [
        m * 10.0**e
        for e in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
        for m in (1, 2, 5)
    ]
    ticks = [t for t in ticks if lo <= t <= hi] or [finite[0]]
    ax.set_xlim(lo, hi)
    ax.set_xticks(ticks)
    ax.set_xticklabels([format_value(float(t)) for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())


def load_flows(flows: pd.DataFrame, groups: pd.DataFrame, probes: pd.DataFrame) -> pd.DataFrame:
    """The flows that carry load (probe flows left out), active in the window, with their
    group's name and transport."""
    if flows.empty:
        return flows
    out = flows[flows["throughput_mbps"].notna()]
    if not probes.empty:
        probe_flows = probes[["run_id", "flow"]].drop_duplicates().assign(_probe=True)
        out = out.merge(probe_flows, on=["run_id", "flow"], how="left")
        out = out[out["_probe"].isna()].drop(columns="_probe")
    if not groups.empty:
        names = groups[["run_id", "group", "name", "transport"]]
        out = out.merge(names, on=["run_id", "group"], how="left")
    else:
        out = out.assign(name=out["group"].astype(str), transport="")
    return out


FQ_COLOURS = ("black", "tab:red", "tab:blue", "tab:green", "tab:purple", "tab:brown")
"""Colours of the flow-queueing AQMs, in order, apart from the tab20 colours of the others."""


def line_styles(values: list[Any]) -> dict[Any, dict[str, Any]]:
    """Colour, dash pattern, width and marker of each value's line: flow-queueing AQMs solid,
    thick and in strong colours; the others thinner, in tab20 colours and alternating dash
    patterns."""
    styles: dict[Any, dict[str, Any]] = {}
    fq = single = 0
    for i, value in enumerate(values):
        if value in FLOW_QUEUEING:
            colour = FQ_COLOURS[fq % len(FQ_COLOURS)]
            styles[value] = {"color": colour, "linestyle": "-", "linewidth": 2.4}
            fq += 1
        else:
            colour = plt.get_cmap("tab20")(single % 20)
            dash = LINE_STYLES[single % len(LINE_STYLES)]
            styles[value] = {"color": colour, "linestyle": dash, "linewidth": 1.3}
            single += 1
        styles[value]["marker"] = MARKERS[i % len(MARKERS)]
    return styles


def _title(experiment: Experiment, df: pd.DataFrame, what: str) -> str:
    seeds = df["seed"].nunique() if "seed" in df else 1
    pooled = f"{seeds} seed{'s' if seeds != 1 else ''}" + (" pooled" if seeds > 1 else "")
    lines = [experiment.display_title(df), quick_note(experiment), f"{what} ({pooled})"]
    return "\n".join(line for line in lines if line)


def plot_rtt_cdf(
    experiment: Experiment,
    df: pd.DataFrame,
    probes: pd.DataFrame,
    out_dir: str | os.PathLike[str],
    stem: str,
) -> list[Path]:
    """The probes' round-trip-time CDF, one line per value of `plot.lines`, log x axis."""
    key = experiment.plot.lines
    inside = windowed_probes(df, probes)
    values = line_values(experiment, df)
    styles = line_styles(values)
    fig, ax = plt.subplots(figsize=(9.5, 5.6))
    for value in values:
        rtt = np.sort(inside[inside[key] == value]["rtt_ms"].to_numpy()) if len(inside) else []
        if len(rtt) == 0:
            continue
        share = np.arange(1, len(rtt) + 1) / len(rtt)
        label = f"{display(value)} (median {percentile(rtt, 50):.0f} ms)"
        style = {k: v for k, v in styles[value].items() if k != "marker"}
        ax.step(
            np.concatenate([[rtt[0]], rtt]),
            np.concatenate([[0.0], share]),
            where="post",
            label=label,
            **style,
        )
    _ms_axis(ax, inside["rtt_ms"].tolist() if len(inside) else [])
    ax.set_xlabel("probe round-trip time (ms, log scale)")
    ax.set_ylabel("share of answered probes at or below")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_lines():
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    fig.suptitle(_title(experiment, df, f"latency probes sent in the {window_phrase(df)}"))
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), f"{stem}_rtt_cdf")


def plot_flow_throughput(
    experiment: Experiment,
    df: pd.DataFrame,
    flows: pd.DataFrame,
    out_dir: str | os.PathLike[str],
    stem: str,
) -> list[Path]:
    """Every load flow's goodput in one column per value of `plot.lines`: one strip of
    points per flow group (uploads and downloads apart), a bar at each strip's mean; coloured
    by group, or by the flows' base RTT when a group's flows differ in it."""
    key = experiment.plot.lines
    values = line_values(experiment, df)
    groups = list(dict.fromkeys(flows["name"])) if len(flows) else []
    by_rtt = bool(len(flows)) and bool((flows.groupby("name")["rtt_prop_ms"].nunique() > 1).any())
    fig, ax = plt.subplots(figsize=(max(7.0, 0.62 * len(values) + 3.0), 5.4))
    width = 0.8 / max(1, len(groups))
    norm = None
    if by_rtt:
        rtts = flows["rtt_prop_ms"]
        norm = LogNorm(vmin=float(rtts.min()), vmax=float(rtts.max()))
    scatter = None
    labelled: set[str] = set()
    for k, name in enumerate(groups):
        colour = plt.get_cmap("tab10")(k % 10)
        marker = MARKERS[k % len(MARKERS)]
        for x, value in enumerate(values):
            sub = flows[(flows[key] == value) & (flows["name"] == name)]
            if sub.empty:
                continue
            centre = x + (k - (len(groups) - 1) / 2) * width
            sub = sub.sort_values("throughput_mbps")
            spread = np.linspace(-0.3, 0.3, len(sub)) * width if len(sub) > 1 else [0.0]
            xs = centre + np.asarray(spread)
            ys = sub["throughput_mbps"].to_numpy()
            label = None if name in labelled else name
            labelled.add(name)
            if by_rtt:
                scatter = ax.scatter(
                    xs,
                    ys,
                    c=sub["rtt_prop_ms"].to_numpy(),
                    cmap="viridis",
                    norm=norm,
                    marker=marker,
                    s=22,
                    edgecolors="black",
                    linewidths=0.3,
                    label=label,
                    zorder=3,
                )
            else:
                ax.scatter(
                    xs,
                    ys,
                    color=colour,
                    marker=marker,
                    s=20,
                    label=label,
                    zorder=3,
                )
            ax.hlines(
                float(np.mean(ys)),
                centre - 0.45 * width,
                centre + 0.45 * width,
                color="black",
                linewidth=1.2,
                zorder=4,
            )
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels([display(v) for v in values], rotation=45, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(values) - 0.4)
    ax.set_ylabel("per-flow goodput (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    if scatter is not None:
        bar = fig.colorbar(scatter, ax=ax, pad=0.01)
        bar.set_label("base RTT (ms)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(title="flow group (bar: mean)", fontsize=8, title_fontsize=8, loc="best")
    fig.suptitle(_title(experiment, df, f"goodput of each flow over the {window_phrase(df)}"))
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), f"{stem}_flow_throughput")


def plot_goodput_latency(
    experiment: Experiment,
    points: pd.DataFrame,
    df: pd.DataFrame,
    out_dir: str | os.PathLike[str],
    stem: str,
) -> list[Path]:
    """Goodput against the probes' median RTT, one point per value of `plot.lines`
    (`latency_points`), a bar from the median to the 99th percentile; log x axis. One panel
    for the total goodput, then one per group that carries load when there are several
    (uploads and downloads, TCP and UDP)."""
    key = experiment.plot.lines
    panels = list(dict.fromkeys(points["goodput"])) if len(points) else ["total"]
    values = list(dict.fromkeys(points[key])) if len(points) else []
    styles = line_styles(values)
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4.6 * len(panels) + 2.0, 5.6), squeeze=False, sharex=True
    )
    several_seeds = bool(len(points)) and bool((points["seeds"] > 1).any())
    for ax, panel in zip(axes[0], panels):
        rows = points[points["goodput"] == panel] if len(points) else points
        for _, row in rows.iterrows():
            value = row[key]
            style = styles[value]
            x50, x99, y = row["probe_rtt_p50_ms"], row["probe_rtt_p99_ms"], row["goodput_mbps"]
            if not (np.isfinite(x50) and np.isfinite(y)):
                continue
            if np.isfinite(x99):
                ax.plot([x50, x99], [y, y], color=style["color"], linewidth=1.0, alpha=0.8)
                ax.plot([x99], [y], marker="|", color=style["color"], markersize=9)
            if row["seeds"] > 1:
                ax.plot(
                    [x50, x50],
                    [row["goodput_min_mbps"], row["goodput_max_mbps"]],
                    color=style["color"],
                    linewidth=1.0,
                )
            ax.plot(
                [x50],
                [y],
                marker=style["marker"],
                markersize=8 if value in FLOW_QUEUEING else 6,
                color=style["color"],
                markeredgecolor="black",
                linestyle="none",
                label=display(value),
            )
            if panel == panels[0]:
                ax.annotate(
                    display(value), (x50, y), xytext=(4, 4), textcoords="offset points", fontsize=7
                )
        _ms_axis(ax, [*points["probe_rtt_p50_ms"], *points["probe_rtt_p99_ms"]])
        ax.set_xlabel("probe RTT (ms): median (marker) to p99 (bar)")
        ax.set_ylabel("total goodput (Mb/s)" if panel == "total" else f"goodput of {panel} (Mb/s)")
        top = float(rows["goodput_max_mbps"].max()) if len(rows) else 1.0
        ax.set_ylim(bottom=0, top=max(1.0, top * 1.08) if np.isfinite(top) else 1.0)
        ax.set_title(
            "all flows but the probes" if panel == "total" else f"group {panel}", fontsize=10
        )
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="center right", fontsize=8, frameon=False)
    note = "better: up and to the left"
    if several_seeds:
        note += "; vertical bar: range of goodput over the seeds"
    fig.suptitle(
        _title(experiment, df, f"goodput against latency under load, {window_phrase(df)}")
        + f"\n{note}"
    )
    fig.tight_layout(rect=(0, 0, 1 - 1.8 / (4.6 * len(panels) + 2.0), 1))
    return save_figure(fig, Path(out_dir), f"{stem}_goodput_latency")


def plot_latency(
    experiment: Experiment,
    df: pd.DataFrame,
    tables: Mapping[str, pd.DataFrame],
    out_dir: str | os.PathLike[str],
    stem: str,
) -> list[Path]:
    """The three latency-under-load figures of a sweep (the module's docstring): `df` is its
    tidy table, `tables` its kept probes, flows and groups tables (`load_tables`)."""
    empty = pd.DataFrame()
    probes = tables.get("probes", empty)
    flows = load_flows(tables.get("flows", empty), tables.get("groups", empty), probes)
    paths = plot_rtt_cdf(experiment, df, probes, out_dir, stem)
    paths += plot_flow_throughput(experiment, df, flows, out_dir, stem)
    points = latency_points(experiment, df, probes, tables.get("groups", empty))
    paths += plot_goodput_latency(experiment, points, df, out_dir, stem)
    return paths
