"""The figures of an experiment with `plot.kind = "coexistence"`: a group of scalable (L4S)
senders named `scalable` against a group of classic ones named `classic`, one line per value
of `plot.lines` (the AQM) against the base RTT (the `plot.x` axis), one panel per combination
of the other axes (flows per group, the scalable sender):

- `<stem>_rate_balance`: the rate balance, the mean per-flow goodput of the scalable group
  over that of the classic group, against the base RTT on a log scale, with the band of a
  factor of 2 either way (RFC 9332 §2.4 and §4.1 aim at rough rate balance with k = 2);
- `<stem>_queue_delay`: each group's queuing delay (mean, and a bar on to the 99th
  percentile) against the base RTT, one column of panels per AQM (on DualPI2, the groups are
  the L and the C queue);
- `<stem>_throughput_time_<panel>`: each group's per-flow goodput over time in the first seed's
  run, one panel per AQM (rows) and base RTT (columns).

The rate balance of a grid point is the geometric mean over its seeds of each run's balance
(ratios average on a log scale). A group's queuing delay is its one-way delay less the
one-way propagation delay (half the flows' `rtt_prop_ms`): the time its packets waited in
queues plus their transmission times (0.3 ms for 1500 bytes at 40 Mb/s)."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import FixedLocator, NullFormatter

from ..sweeps.experiment import Experiment, format_value, window_phrase
from .common import display, plt, quick_note, save_figure

SCALABLE, CLASSIC = "scalable", "classic"
"""The names of the two flow groups the figures compare."""

BALANCE_BAND = 2.0
"""The rate balance RFC 9332 aims at lies within a factor of this either way of 1."""

GROUP_STYLE = {SCALABLE: ("tab:blue", "o"), CLASSIC: ("tab:orange", "s")}
LINE_COLOURS = ("tab:blue", "tab:red", "tab:green", "black", "tab:purple", "tab:brown")
MARKERS = "o^sDvP*Xh"


class CoexistenceError(ValueError):
    """Tables that lack what the figures need; the message is one line."""


def panel_axes(experiment: Experiment) -> list[str]:
    """The axes that are neither `plot.x` nor `plot.lines`: one panel per combination."""
    return [
        a.name for a in experiment.axes if a.name not in (experiment.plot.x, experiment.plot.lines)
    ]


def _values(experiment: Experiment, name: str, df: pd.DataFrame) -> list[Any]:
    axis = experiment.axis(name)
    values = [axis.column_values(v)[name] for v in axis.values] if axis else []
    present = set(df[name].tolist()) if name in df else set()
    return [v for v in values if v in present]


def panels(experiment: Experiment, df: pd.DataFrame) -> list[dict[str, Any]]:
    """Every combination of the panel axes' values present in `df`, in file order."""
    names = panel_axes(experiment)
    combos = itertools.product(*(_values(experiment, n, df) for n in names))
    return [dict(zip(names, c)) for c in combos if _select(df, dict(zip(names, c))).any()]


def _select(df: pd.DataFrame, where: Mapping[str, Any]) -> pd.Series:
    mask = pd.Series(True, index=df.index)
    for k, v in where.items():
        mask &= df[k] == v
    return mask


def panel_label(experiment: Experiment, where: Mapping[str, Any]) -> str:
    parts = []
    for name, value in where.items():
        axis = experiment.axis(name)
        parts.append(f"{axis.label if axis else name} = {format_value(value)}")
    return ", ".join(parts)


def run_balance(groups: pd.DataFrame, flows: pd.DataFrame) -> pd.DataFrame:
    """One row per run: `base_rtt_ms` (the median `rtt_prop_ms` of its flows), the rate
    balance and, per group (`scalable_*`, `classic_*`), the mean per-flow goodput, the
    queuing delay's mean and 99th percentile and the loss rate."""
    for name, table in (("groups", groups), ("flows", flows)):
        if table.empty:
            raise CoexistenceError(f"coexistence figures: no kept {name} table")
    names = set(groups["name"])
    missing = [g for g in (SCALABLE, CLASSIC) if g not in names]
    if missing:
        raise CoexistenceError(
            f"coexistence figures: no flow group named '{missing[0]}' "
            f"(the groups are {', '.join(sorted(names))})"
        )
    rtt = flows.groupby("run_id")["rtt_prop_ms"].median().rename("base_rtt_ms")
    rows = groups[groups["name"].isin((SCALABLE, CLASSIC))].merge(rtt, on="run_id")
    prop_ms = rows["base_rtt_ms"] / 2.0
    rows = rows.assign(
        queue_delay_mean_ms=rows["delay_mean_ms"] - prop_ms,
        queue_delay_p99_ms=rows["delay_p99_ms"] - prop_ms,
    )
    cols = ["flow_throughput_mbps", "queue_delay_mean_ms", "queue_delay_p99_ms", "loss_rate"]
    wide = rows.pivot(index="run_id", columns="name", values=cols)
    wide.columns = [f"{g}_{c}" for c, g in wide.columns]
    out = wide.reset_index().merge(rtt.reset_index(), on="run_id")
    classic = out[f"{CLASSIC}_flow_throughput_mbps"].to_numpy()
    scalable = out[f"{SCALABLE}_flow_throughput_mbps"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["rate_balance"] = np.where(classic > 0, scalable / classic, np.inf)
    return out


def coexistence_points(
    experiment: Experiment, df: pd.DataFrame, tables: Mapping[str, pd.DataFrame]
) -> pd.DataFrame:
    """One row per grid point (seeds pooled): its axis values, `base_rtt_ms`, `seeds`, the
    rate balance (`rate_balance`: geometric mean over seeds; `rate_balance_min`, `_max`),
    each group's per-flow goodput, queuing delay (mean and p99) and loss rate (means over
    seeds), and the summary's `link_efficiency`, `mark_rate` and `drop_rate` (means)."""
    empty = pd.DataFrame()
    runs = run_balance(tables.get("groups", empty), tables.get("flows", empty))
    keys = [a.name for a in experiment.axes]
    summary = [m for m in ("link_efficiency", "mark_rate", "drop_rate") if m in df]
    merged = df[["run_id", *keys, "seed", *summary]].merge(runs, on="run_id")
    measures = [c for c in runs.columns if c not in ("run_id", "rate_balance")] + summary
    rows = []
    for key, sub in merged.groupby(keys, sort=False, dropna=False):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        ratio = sub["rate_balance"].to_numpy(dtype=float)
        with np.errstate(divide="ignore"):
            row["rate_balance"] = float(np.exp(np.mean(np.log(ratio))))
        row["rate_balance_min"] = float(ratio.min())
        row["rate_balance_max"] = float(ratio.max())
        row["seeds"] = int(sub["seed"].nunique())
        row.update({m: float(sub[m].mean()) for m in measures})
        rows.append(row)
    return pd.DataFrame(rows)


def _title(experiment: Experiment, df: pd.DataFrame, what: str) -> str:
    seeds = df["seed"].nunique() if "seed" in df else 1
    lines = [
        experiment.display_title(df),
        quick_note(experiment),
        f"{what} ({seeds} seed{'s' if seeds != 1 else ''})",
    ]
    return "\n".join(line for line in lines if line)


def _rtt_axis(ax, rtts: list[float]) -> None:
    ax.set_xscale("log")
    ticks = sorted({round(r, 3) for r in rtts if np.isfinite(r) and r > 0})
    if ticks:
        ax.set_xlim(ticks[0] / 1.3, ticks[-1] * 1.3)
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.set_xticklabels([format_value(float(t)) for t in ticks])
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("base RTT (ms, log scale)")


def _line_style(i: int) -> dict[str, Any]:
    return {"color": LINE_COLOURS[i % len(LINE_COLOURS)], "marker": MARKERS[i % len(MARKERS)]}


def plot_rate_balance(
    experiment: Experiment, points: pd.DataFrame, df: pd.DataFrame, out_dir, stem
) -> list[Path]:
    """Rate balance against base RTT, one line per value of `plot.lines`, one panel per
    combination of the other axes; the factor-of-2 band shaded, log y axis."""
    key = experiment.plot.lines
    combos = panels(experiment, points)
    lines = _values(experiment, key, points)
    fig, axes = plt.subplots(
        1, len(combos), figsize=(5.2 * len(combos) + 1.5, 5.0), squeeze=False, sharey=True
    )
    finite = points["rate_balance"].replace([np.inf, -np.inf], np.nan)
    top = max(
        4.0,
        float(np.nanmax([finite.max(), points["rate_balance_max"].replace(np.inf, np.nan).max()]))
        * 1.3,
    )
    bottom = min(0.25, float(np.nanmin([finite.min(), points["rate_balance_min"].min()])) / 1.3)
    for ax, where in zip(axes[0], combos):
        ax.axhspan(
            1 / BALANCE_BAND,
            BALANCE_BAND,
            color="tab:green",
            alpha=0.12,
            label=f"within a factor of {BALANCE_BAND:g}",
        )
        ax.axhline(1.0, color="tab:green", linewidth=0.8)
        sub = points[_select(points, where)]
        for i, value in enumerate(lines):
            rows = sub[sub[key] == value].sort_values("base_rtt_ms")
            if rows.empty:
                continue
            y = rows["rate_balance"].clip(upper=top / 1.05)
            ax.plot(rows["base_rtt_ms"], y, label=display(value), **_line_style(i))
            if (rows["seeds"] > 1).any():
                ax.vlines(
                    rows["base_rtt_ms"],
                    rows["rate_balance_min"].clip(lower=bottom),
                    rows["rate_balance_max"].clip(upper=top),
                    color=_line_style(i)["color"],
                    linewidth=1.0,
                )
        ax.set_yscale("log")
        ax.set_ylim(bottom, top)
        _rtt_axis(ax, list(points["base_rtt_ms"]))
        ax.set_title(panel_label(experiment, where), fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("rate balance: scalable / classic per-flow goodput (log)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8, frameon=False)
    note = "points above the axis top are drawn at it; bars: range over the seeds"
    fig.suptitle(
        _title(experiment, df, f"rate balance over the {window_phrase(df)}") + f"\n{note}",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1 - 1.6 / (5.2 * len(combos) + 1.5), 1))
    return save_figure(fig, Path(out_dir), f"{stem}_rate_balance")


def _group_label(aqm: Any, group: str) -> str:
    if aqm == "dualpi2":
        return f"{group} ({'L' if group == SCALABLE else 'C'} queue)"
    return group


def plot_queue_delay(
    experiment: Experiment, points: pd.DataFrame, df: pd.DataFrame, out_dir, stem
) -> list[Path]:
    """Each group's queuing delay against base RTT: marker at the mean, bar on to the 99th
    percentile; one column per value of `plot.lines`, one row per panel combination."""
    key = experiment.plot.lines
    combos = panels(experiment, points)
    lines = _values(experiment, key, points)
    fig, axes = plt.subplots(
        len(combos),
        len(lines),
        figsize=(3.6 * len(lines) + 0.8, 3.4 * len(combos) + 1.4),
        squeeze=False,
        sharey=True,
    )
    delays = points[[f"{g}_queue_delay_{s}_ms" for g in GROUP_STYLE for s in ("mean", "p99")]]
    positive = delays.to_numpy()[np.isfinite(delays.to_numpy()) & (delays.to_numpy() > 0)]
    lo = float(positive.min()) / 1.5 if len(positive) else 0.1
    hi = float(positive.max()) * 1.5 if len(positive) else 100.0
    for r, where in enumerate(combos):
        for c, value in enumerate(lines):
            ax = axes[r][c]
            rows = points[_select(points, where) & (points[key] == value)].sort_values(
                "base_rtt_ms"
            )
            for k, (group, (colour, marker)) in enumerate(GROUP_STYLE.items()):
                x = rows["base_rtt_ms"].to_numpy() * (0.94 if k == 0 else 1.06)
                mean = rows[f"{group}_queue_delay_mean_ms"].to_numpy()
                p99 = rows[f"{group}_queue_delay_p99_ms"].to_numpy()
                ax.vlines(x, np.maximum(mean, lo), np.maximum(p99, lo), color=colour, linewidth=1.2)
                ax.plot(
                    x,
                    np.maximum(mean, lo),
                    marker=marker,
                    color=colour,
                    linestyle="-",
                    linewidth=0.8,
                    label=_group_label(value, group),
                )
                ax.plot(
                    x,
                    np.maximum(p99, lo),
                    marker="_",
                    color=colour,
                    linestyle="none",
                    markersize=10,
                )
            ax.set_yscale("log")
            ax.set_ylim(lo, hi)
            _rtt_axis(ax, list(points["base_rtt_ms"]))
            ax.set_title(f"{display(value)}\n{panel_label(experiment, where)}", fontsize=8)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7, loc="upper left")
        axes[r][0].set_ylabel("queuing delay (ms, log)")
    note = "marker: mean; bar on to the 99th percentile; one-way delay less propagation"
    fig.suptitle(
        _title(experiment, df, f"each group's queuing delay over the {window_phrase(df)}")
        + f"\n{note}",
        fontsize=10,
    )
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), f"{stem}_queue_delay")


def moving_average(t_s: np.ndarray, values: np.ndarray, window_s: float) -> np.ndarray:
    """Trailing mean over `window_s` of samples at a fixed step (fewer samples at the start)."""
    if len(t_s) < 2:
        return values
    n = max(1, int(round(window_s / (t_s[1] - t_s[0]))))
    csum = np.cumsum(np.insert(values, 0, 0.0))
    idx = np.arange(1, len(values) + 1)
    start = np.maximum(idx - n, 0)
    return (csum[idx] - csum[start]) / (idx - start)


def file_suffix(where: Mapping[str, Any], n: int) -> str:
    """A file-name part for a panel combination: `(dctcp, ect1)` and 4 give `dctcp-ect1_4`."""
    parts = [re.sub(r"[^A-Za-z0-9.]+", "-", format_value(v)).strip("-") for v in where.values()]
    return "_".join(parts) if parts else str(n)


def plot_throughput_time(
    experiment: Experiment,
    df: pd.DataFrame,
    groups: pd.DataFrame,
    traces: Mapping[str, pd.DataFrame],
    out_dir,
    stem,
) -> list[Path]:
    """Per panel combination, one figure: each group's goodput per flow over time in the first
    seed's run of each (AQM, base RTT), a trailing moving average of `plot.moving_average_s`."""
    key, x = experiment.plot.lines, experiment.plot.x
    lines, xs = _values(experiment, key, df), _values(experiment, x, df)
    counts = groups.set_index(["run_id", "name"])["flows"]
    paths: list[Path] = []
    for n, where in enumerate(panels(experiment, df)):
        fig, axes = plt.subplots(
            len(lines),
            len(xs),
            figsize=(2.9 * len(xs) + 0.8, 2.2 * len(lines) + 1.4),
            squeeze=False,
            sharex=True,
            sharey=True,
        )
        for r, value in enumerate(lines):
            for c, xv in enumerate(xs):
                ax = axes[r][c]
                runs = df[_select(df, where) & (df[key] == value) & (df[x] == xv)]
                run_ids = [rid for rid in runs.sort_values("seed")["run_id"] if rid in traces]
                if run_ids:
                    ts = traces[run_ids[0]]
                    for group in GROUP_STYLE:
                        col = f"goodput_mbps_{group}"
                        if col not in ts:
                            continue
                        flows_in = max(1, int(counts.get((run_ids[0], group), 1)))
                        t = ts["t_s"].to_numpy()
                        y = moving_average(
                            t, ts[col].to_numpy() / flows_in, experiment.plot.moving_average_s
                        )
                        ax.plot(
                            t,
                            y,
                            color=GROUP_STYLE[group][0],
                            linewidth=0.9,
                            label=_group_label(value, group),
                        )
                if r == 0:
                    rtt = (
                        runs["base_rtt_ms"].iloc[0]
                        if "base_rtt_ms" in runs and len(runs)
                        else 2 * float(xv)
                    )
                    ax.set_title(f"base RTT {format_value(float(rtt))} ms", fontsize=9)
                if c == 0:
                    ax.set_ylabel(f"{display(value)}\nMb/s per flow", fontsize=9)
                if r == len(lines) - 1:
                    ax.set_xlabel("time (s)")
                ax.grid(True, alpha=0.3)
                ax.set_ylim(bottom=0)
        handles, labels = axes[0][0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
        average = format_value(experiment.plot.moving_average_s)
        what = (
            f"per-flow goodput over time ({average} s moving average), first seed; "
            f"{panel_label(experiment, where)}"
        )
        fig.suptitle(
            "\n".join(s for s in (experiment.display_title(df), quick_note(experiment), what) if s),
            fontsize=10,
        )
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        paths += save_figure(fig, Path(out_dir), f"{stem}_throughput_time_{file_suffix(where, n)}")
    return paths


def plot_coexistence(
    experiment: Experiment,
    df: pd.DataFrame,
    tables: Mapping[str, pd.DataFrame],
    traces: Mapping[str, pd.DataFrame],
    out_dir: str | os.PathLike[str],
    stem: str,
) -> list[Path]:
    """The coexistence figures of a sweep (the module's docstring): `df` is its tidy table,
    `tables` its kept flows and groups tables (`load_tables`), `traces` the time series of the
    first seed's run of each grid point, by run id (`load_point_traces`)."""
    points = coexistence_points(experiment, df, tables)
    paths = plot_rate_balance(experiment, points, df, out_dir, stem)
    paths += plot_queue_delay(experiment, points, df, out_dir, stem)
    runs = run_balance(tables["groups"], tables["flows"])[["run_id", "base_rtt_ms"]]
    paths += plot_throughput_time(
        experiment, df.merge(runs, on="run_id", how="left"), tables["groups"], traces, out_dir, stem
    )
    return paths
