"""The report card's figures for one RFC 7928 section (matplotlib; docs/evaluate.md):

- `<section>_delay_goodput`: one panel per case, for each AQM every run (each seed) as a point
  of the bottleneck's mean queueing delay and the goodput, the median of the runs as a circle,
  and the ellipse of the maximum-likelihood 2-D Gaussian of the points at one standard
  deviation (its orientation the covariance of delay and goodput): RFC 7928 §2.7's graph,
  drawn as Winstein's (the RFC's [WINS2014]); an ellipse needs three runs or more. Better is
  up and to the left.
- `<section>_probe_rtt`: one panel per case, the CDF of the latency probe's round-trip times
  sent inside the window (all seeds), one line per AQM.
- `sensitivity_changes` (§8.3): one panel per AQM, the change of the queueing delay and the
  goodput with each parameter halved and doubled.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.patches import Ellipse

from ..engine.store import RunStore
from ..present.common import display, plt, save_figure
from ..sweeps.experiment import RunSpec, format_value
from .result import SectionResult

COLOURS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def panel_axis(result: SectionResult) -> str | None:
    """The axis other than `aqm` that gives one panel per value (the cases), if any."""
    return next((a.name for a in result.experiment.axes if a.name != "aqm"), None)


def ellipse(x: np.ndarray, y: np.ndarray, **style) -> Ellipse | None:
    """The one-standard-deviation contour of the maximum-likelihood Gaussian of the points
    (x, y) (None for fewer than 3)."""
    if len(x) < 3:
        return None
    cov = np.cov(np.vstack([x, y]), bias=True)
    values, vectors = np.linalg.eigh(cov)
    values = np.clip(values, 0.0, None)
    angle = float(np.degrees(np.arctan2(vectors[1, 1], vectors[0, 1])))
    return Ellipse(
        (float(np.mean(x)), float(np.mean(y))),
        width=2 * float(np.sqrt(values[1])),
        height=2 * float(np.sqrt(values[0])),
        angle=angle,
        fill=False,
        **style,
    )


def _probes(specs: Sequence[RunSpec], store: RunStore) -> pd.DataFrame:
    frames = []
    for spec in specs:
        if not store.has(spec.run_id, tables=("probes",)):
            continue
        summary = store.read(spec.run_id)["summary"]
        probes = store.read_table(spec.run_id, "probes")
        inside = probes[
            (probes["t_s"] >= summary["window_start_s"])
            & (probes["t_s"] < summary["window_end_s"])
            & (probes["lost"] == 0)
        ]
        frames.append(inside.assign(**spec.params))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _panels(result: SectionResult, n: int):
    cols = min(n, 3)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.7 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def _title(result: SectionResult, what: str) -> str:
    s = result.section
    quick = " (--quick)" if result.experiment.quick else ""
    return f"RFC 7928 {s.rfc} {s.title}: {what}{quick}"


def draw_delay_goodput(result: SectionResult, aqms: Sequence[str], out_dir: Path) -> list[Path]:
    runs = result.measures
    key = panel_axis(result)
    values = list(dict.fromkeys(runs[key])) if key else [None]
    fig, axes = _panels(result, len(values))
    for ax, value in zip(axes, values):
        panel = runs[runs[key] == value] if key else runs
        for i, aqm in enumerate(aqms):
            points = panel[panel["aqm"] == aqm].dropna(
                subset=["queue_delay_mean_ms", "goodput_mbps"]
            )
            if points.empty:
                continue
            colour = COLOURS[i % len(COLOURS)]
            x, y = points["queue_delay_mean_ms"].to_numpy(), points["goodput_mbps"].to_numpy()
            ax.plot(x, y, ".", color=colour, alpha=0.6)
            ax.plot(np.median(x), np.median(y), "o", mfc="none", color=colour, label=display(aqm))
            shape = ellipse(x, y, edgecolor=colour, linewidth=1.5)
            if shape is not None:
                ax.add_patch(shape)
        ax.set_title(format_value(value) if key else result.section.title, fontsize=10)
        ax.set_xlabel("queueing delay (ms)")
        ax.set_ylabel("goodput (Mb/s)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8, frameon=False)
    fig.suptitle(_title(result, "goodput against queueing delay, runs, medians, 1-σ ellipses"))
    fig.tight_layout()
    return save_figure(fig, out_dir, f"{result.section.stem}_delay_goodput")


def draw_probe_rtt(
    result: SectionResult, probes: pd.DataFrame, aqms: Sequence[str], out_dir: Path
) -> list[Path]:
    key = panel_axis(result)
    values = list(dict.fromkeys(probes[key])) if key else [None]
    fig, axes = _panels(result, len(values))
    for ax, value in zip(axes, values):
        panel = probes[probes[key] == value] if key else probes
        for i, aqm in enumerate(aqms):
            rtt = np.sort(panel[panel["aqm"] == aqm]["rtt_ms"].to_numpy())
            if len(rtt) == 0:
                continue
            share = np.arange(1, len(rtt) + 1) / len(rtt)
            ax.step(rtt, share, where="post", color=COLOURS[i % len(COLOURS)], label=display(aqm))
        ax.set_title(format_value(value) if key else result.section.title, fontsize=10)
        ax.set_xlabel("probe round-trip time (ms)")
        ax.set_ylabel("share of answered probes")
        ax.set_ylim(0, 1.02)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8, frameon=False)
    fig.suptitle(_title(result, "latency probe round-trip times"))
    fig.tight_layout()
    return save_figure(fig, out_dir, f"{result.section.stem}_probe_rtt")


def draw_sensitivity(result: SectionResult, aqms: Sequence[str], out_dir: Path) -> list[Path]:
    """One panel per AQM: the signed change of the mean queueing delay and goodput (over the
    seeds) with each parameter halved and doubled, against every default."""
    df = result.measures
    fig, axes = _panels(result, len(aqms))
    for ax, aqm in zip(axes, aqms):
        own = df[df["aqm"] == aqm]
        means = own.groupby(["parameter", "factor"], sort=False)[
            ["queue_delay_mean_ms", "goodput_mbps"]
        ].mean()
        if ("default", 1.0) not in means.index:
            ax.set_visible(False)
            continue
        default = means.loc[("default", 1.0)]
        variants = means.drop(index=("default", 1.0))
        labels = [f"{name} ×{factor:g}" for name, factor in variants.index]
        y = np.arange(len(labels))
        for offset, (metric, label) in enumerate(
            (("queue_delay_mean_ms", "queueing delay"), ("goodput_mbps", "goodput"))
        ):
            change = 100 * (variants[metric] - default[metric]) / default[metric]
            ax.barh(y + 0.4 * offset - 0.2, change, height=0.4, label=label,
                    color=COLOURS[offset])  # fmt: skip
        ax.set_yticks(y, labels, fontsize=8)
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel("change against every default (%)")
        ax.set_title(display(aqm), fontsize=10)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].legend(fontsize=8, frameon=False)
    fig.suptitle(_title(result, "each parameter halved and doubled"))
    fig.tight_layout()
    return save_figure(fig, out_dir, f"{result.section.stem}_changes")


def draw_section(
    result: SectionResult, specs: Sequence[RunSpec], store: RunStore, out_dir: Path, aqms
) -> list[Path]:
    """Every figure of the section that its stored runs allow."""
    if result.section.stem == "sensitivity":
        return draw_sensitivity(result, aqms, out_dir)
    paths = draw_delay_goodput(result, aqms, out_dir)
    probes = _probes(specs, store)
    if not probes.empty:
        paths += draw_probe_rtt(result, probes, aqms, out_dir)
    return paths
