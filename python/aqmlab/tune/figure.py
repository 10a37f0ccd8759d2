"""The figure of a tuning study (`pareto.png`, `pareto.svg`): every trial, the Pareto front,
the default parameters and the chosen points run with five seeds; one panel for two
objectives, one per pair for more, the objective against the trial number for one."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..present.common import save_figure  # noqa: E402
from ..present.plots import metric_label  # noqa: E402
from .front import DEFAULT_POINT  # noqa: E402
from .space import Objective  # noqa: E402

FRONT_COLOR = "tab:red"
RERUN_COLOR = "tab:blue"


def _label(o: Objective) -> tuple[str, float]:
    label, scale = metric_label(o.metric)
    better = "higher" if o.maximise else "lower"
    return f"{label}, {better} is better", scale


def _panel(
    ax,
    x: Objective,
    y: Objective,
    trials: pd.DataFrame,
    pareto: pd.DataFrame,
    rerun: pd.DataFrame,
    legend: bool,
    connect: bool,
) -> None:
    (xl, xs), (yl, ys) = _label(x), _label(y)
    done = trials[trials["state"] == "complete"]
    ax.scatter(
        done[x.metric] * xs, done[y.metric] * ys, s=14, color="0.7", label="trials", zorder=1
    )
    front = pareto[pareto["point"] != DEFAULT_POINT].sort_values(x.metric)
    ax.plot(
        front[x.metric] * xs,
        front[y.metric] * ys,
        "o-" if connect else "o",
        color=FRONT_COLOR,
        ms=5,
        lw=1,
        label="Pareto front (trial numbers)",
        zorder=3,
    )
    for _, r in front.iterrows():
        ax.annotate(
            str(int(r["trial"])),
            (r[x.metric] * xs, r[y.metric] * ys),
            xytext=(4, -10),
            textcoords="offset points",
            fontsize=7,
            color=FRONT_COLOR,
        )
    default = pareto[pareto["point"] == DEFAULT_POINT]
    ax.scatter(
        default[x.metric] * xs,
        default[y.metric] * ys,
        marker="*",
        s=160,
        color="black",
        label="default parameters",
        zorder=4,
    )
    if not rerun.empty:
        ax.errorbar(
            rerun[f"{x.metric}_mean"] * xs,
            rerun[f"{y.metric}_mean"] * ys,
            xerr=rerun[f"{x.metric}_std"].fillna(0) * xs,
            yerr=rerun[f"{y.metric}_std"].fillna(0) * ys,
            fmt="s",
            mfc="none",
            color=RERUN_COLOR,
            ms=7,
            capsize=2,
            label="chosen points, seeds 1-5 (mean ± std)",
            zorder=2,
        )
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize="small")


def _single(ax, o: Objective, trials: pd.DataFrame, pareto: pd.DataFrame) -> None:
    label, scale = _label(o)
    done = trials[trials["state"] == "complete"]
    ax.scatter(done["trial"], done[o.metric] * scale, s=14, color="0.7", label="trials")
    best = pareto[pareto["point"] != DEFAULT_POINT]
    ax.scatter(best["trial"], best[o.metric] * scale, color=FRONT_COLOR, label="best trial")
    default = pareto[pareto["point"] == DEFAULT_POINT][o.metric]
    if len(default):
        ax.axhline(float(default.iloc[0]) * scale, color="black", ls="--", label="default")
    ax.set_xlabel("trial")
    ax.set_ylabel(label)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")


def plot_front(
    trials: pd.DataFrame,
    pareto: pd.DataFrame,
    rerun: pd.DataFrame,
    objectives: Sequence[Objective],
    title: str,
    out_dir: Path,
    stem: str = "pareto",
) -> list[Path]:
    """Draw the study and save it as `<stem>.png` and `<stem>.svg` in `out_dir`."""
    pairs = list(itertools.combinations(objectives, 2))
    if not pairs:
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        _single(ax, objectives[0], trials, pareto)
    else:
        cols = min(3, len(pairs))
        rows = -(-len(pairs) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(5.6 * cols, 4.6 * rows), squeeze=False)
        for i, (x, y) in enumerate(pairs):
            ax = axes[i // cols][i % cols]
            _panel(ax, x, y, trials, pareto, rerun, legend=i == 0, connect=len(pairs) == 1)
        for ax in axes.flat[len(pairs) :]:
            ax.set_visible(False)
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return save_figure(fig, out_dir, stem)
