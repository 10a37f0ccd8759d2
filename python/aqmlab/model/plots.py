"""Figures of the discrete-time model (matplotlib, Agg), each written as PNG and SVG:
bifurcation diagrams (as the self-tuning-RED paper's Figs. 3 and 4), Lyapunov exponents,
two-parameter stability maps, the map with a cobweb of an orbit, and the model next to the
packet simulator."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.colors import BoundaryNorm, ListedColormap, TwoSlopeNorm
from matplotlib.lines import Line2D

from ..present.plots import plt, save_figure
from .api import PARAM_LABELS, Bifurcation

DROP_TITLES = {"red": "RED", "gentle": "Gentle RED", "betared": "BetaRED"}
"""How each drop function of the model is named in titles."""

STABILITY_BOUNDARY = (
    "|λ| = 1 at the fixed point q*, i.e. w = 2/(1 + s):\nthe linear-stability boundary"
)
"""The legend entry of the dashed curve of a stability map."""


def param_label(name: str) -> str:
    """The axis label of a model parameter."""
    return PARAM_LABELS.get(name, name)


def _mark_bound(ax, bound: float | None) -> None:
    """A vertical line at the stability bound on w, when it is finite."""
    if bound is not None and np.isfinite(bound):
        ax.axvline(
            bound,
            color="tab:red",
            linestyle=":",
            linewidth=1.0,
            label=f"stability bound w = {bound:.4f}",
        )


def plot_bifurcation(
    bif: Bifurcation,
    out_dir: str | os.PathLike[str],
    stem: str = "bifurcation",
    title: str | None = None,
    lyapunov: bool = True,
    queue: bool = False,
    w_bound: float | None = None,
    logx: bool = False,
) -> list[Path]:
    """The recorded iterates of q_avg against the swept parameter (dots), the fixed point
    (solid where linearly stable, dashed where not), optionally the instantaneous queue Q in a
    second panel (`queue`, as the paper's Fig. 3(b)) and the Lyapunov exponent below
    (`lyapunov`). `w_bound` draws a vertical line at the stability bound; `logx` a
    logarithmic parameter axis."""
    panels = 1 + int(queue) + int(lyapunov)
    heights = [3.0] + ([2.2] if queue else []) + ([1.6] if lyapunov else [])
    fig, axes = plt.subplots(
        panels,
        1,
        figsize=(7.0, sum(heights) + 0.9),
        sharex=True,
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    axes = axes[:, 0]
    pts, summ = bif.points, bif.summary
    ax = axes[0]
    ax.plot(pts["value"], pts["q_avg_pkts"], ",", color="black", alpha=0.6, rasterized=True)
    q_star = summ["q_star_pkts"].to_numpy()
    stable = summ["fixed_point_stable"].to_numpy(dtype=bool)
    x = summ["value"].to_numpy()
    ax.plot(
        x,
        np.where(stable, q_star, np.nan),
        color="tab:blue",
        linewidth=1.0,
        label="fixed point q* (stable)",
    )
    ax.plot(
        x,
        np.where(~stable, q_star, np.nan),
        color="tab:blue",
        linewidth=0.8,
        linestyle="--",
        label="fixed point q* (unstable)",
    )
    ax.set_ylabel("average queue q_avg (packets)")
    _mark_bound(ax, w_bound)
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    i = 1
    if queue:
        axq = axes[i]
        axq.plot(pts["value"], pts["q_pkts"], ",", color="tab:green", alpha=0.6, rasterized=True)
        axq.set_ylabel("queue q (packets)")
        axq.grid(True, alpha=0.3)
        i += 1
    if lyapunov:
        axl = axes[i]
        lam = summ["lyapunov"].to_numpy()
        axl.plot(x, np.maximum(lam, -3.0), color="tab:purple", linewidth=0.8)
        axl.axhline(0.0, color="gray", linewidth=0.8)
        axl.set_ylabel("Lyapunov exp.")
        axl.grid(True, alpha=0.3)
        _mark_bound(axl, w_bound)
    axes[-1].set_xlabel(param_label(bif.param))
    if logx:
        axes[-1].set_xscale("log")
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), stem)


def plot_lyapunov(
    summary: pd.DataFrame,
    param: str,
    out_dir: str | os.PathLike[str],
    stem: str = "lyapunov",
    title: str | None = None,
    w_bound: float | None = None,
) -> list[Path]:
    """The Lyapunov exponent along a sweep (clipped below at -3; superstable points reach
    about -708), with ln|λ| of the fixed point for comparison, and the detected period."""
    fig, (ax, axp) = plt.subplots(
        2, 1, figsize=(7.0, 5.0), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]}
    )
    x = summary["value"].to_numpy()
    lam = summary["lyapunov"].to_numpy()
    ax.plot(
        x,
        np.maximum(lam, -3.0),
        color="tab:purple",
        linewidth=1.0,
        label="Lyapunov exponent of the orbit",
    )
    eig = summary["eigenvalue"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        ax.plot(
            x,
            np.maximum(np.log(np.abs(eig)), -3.0),
            color="tab:blue",
            linestyle="--",
            linewidth=0.8,
            label="ln|λ| at the fixed point",
        )
    ax.axhline(0.0, color="gray", linewidth=0.8)
    _mark_bound(ax, w_bound)
    ax.set_ylabel("Lyapunov exponent")
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    period = summary["period"].to_numpy()
    axp.plot(x, np.where(period > 0, period, np.nan), ".", markersize=2, color="black")
    axp.plot(
        x,
        np.where(period == 0, 0, np.nan),
        ".",
        markersize=2,
        color="tab:red",
        label="no period ≤ max (0)",
    )
    axp.set_ylabel("period")
    axp.set_yscale("symlog", linthresh=1)
    axp.grid(True, alpha=0.3)
    axp.legend(fontsize=7)
    axp.set_xlabel(param_label(param))
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), stem)


def clipped_error_bars(mean: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Error bars of ± `spread` around `mean` for a quantity that cannot be negative (a queue
    length): the lower bar stops at 0. Returns the (2, n) array matplotlib's `yerr` takes
    (distances below, above); NaN stays NaN (no bar)."""
    mean = np.asarray(mean, dtype=float)
    spread = np.asarray(spread, dtype=float)
    below = np.minimum(spread, np.maximum(mean, 0.0))
    return np.vstack([below, spread])


def queue_error_bars(ax, x, mean, spread, what: str, **style) -> None:
    """Draw `mean` with bars of ± one `spread` (a standard deviation) cut at 0, labelled as
    such: "`what`: mean ± 1 std (bars cut at 0)". Points without a finite spread are drawn
    without bars and counted in the label."""
    mean = np.asarray(mean, dtype=float)
    spread = np.asarray(spread, dtype=float)
    missing = int(np.count_nonzero(np.isfinite(mean) & ~np.isfinite(spread)))
    note = f"; {missing} without a std" if missing else ""
    ax.errorbar(
        x,
        mean,
        yerr=clipped_error_bars(mean, spread),
        label=f"{what}: mean ± 1 std (bars cut at 0{note})",
        **style,
    )


def plot_stability_map(
    df: pd.DataFrame,
    x: str,
    y: str,
    out_dir: str | os.PathLike[str],
    color: str = "lyapunov",
    stem: str = "stability_map",
    title: str | None = None,
    drop: str | None = None,
) -> list[Path]:
    """The grid as an image coloured by the Lyapunov exponent (blue: converging, red:
    chaotic; the zero level drawn) or by the period (1 … 8, longer, none), with a colour bar;
    the linear-stability boundary of the fixed point (|λ| = 1, where w equals the bound of
    eq. (3.9)–(3.10)) drawn dashed on top and named in a legend. `drop` (red, gentle or
    betared) is named at the head of the title unless the title already names it."""
    xs = np.sort(df[x].unique())
    ys = np.sort(df[y].unique())
    grid = df.pivot_table(index=y, columns=x, values=color, aggfunc="first")
    grid = grid.reindex(index=ys, columns=xs)
    fig, ax = plt.subplots(figsize=(6.8, 5.0))
    extent = _extent(xs, ys)
    if color == "period":
        values = grid.to_numpy(dtype=float)
        coded = np.where(values == 0, 10, np.where(values > 8, 9, values))
        colours = plt.get_cmap("tab10").colors[:8] + ((0.55, 0.55, 0.55), (0.1, 0.1, 0.1))
        cmap = ListedColormap(colours)
        norm = BoundaryNorm(np.arange(0.5, 11.5), cmap.N)
        im = ax.imshow(
            coded,
            origin="lower",
            aspect="auto",
            extent=extent,
            cmap=cmap,
            norm=norm,
            interpolation="nearest",
        )
        bar = fig.colorbar(im, ax=ax, ticks=np.arange(1, 11))
        bar.ax.set_yticklabels([str(i) for i in range(1, 9)] + ["> 8", "none"])
        bar.set_label("period")
    else:
        values = np.clip(grid.to_numpy(dtype=float), -2.0, 1.0)
        norm = TwoSlopeNorm(vmin=-2.0, vcenter=0.0, vmax=1.0)
        im = ax.imshow(
            values,
            origin="lower",
            aspect="auto",
            extent=extent,
            cmap="RdBu_r",
            norm=norm,
            interpolation="nearest",
        )
        bar = fig.colorbar(im, ax=ax)
        bar.set_label("Lyapunov exponent (clipped to [-2, 1])")
    if len(xs) > 1 and len(ys) > 1:
        eig = df.pivot_table(index=y, columns=x, values="eigenvalue", aggfunc="first")
        eig = np.abs(eig.reindex(index=ys, columns=xs).to_numpy(dtype=float))
        finite = eig[np.isfinite(eig)]
        if finite.size and finite.min() < 1.0 < finite.max():
            ax.contour(xs, ys, eig, levels=[1.0], colors="black", linewidths=1.0, linestyles="--")
            boundary = Line2D([], [], color="black", linewidth=1.0, linestyle="--")
            ax.legend(
                [boundary],
                [STABILITY_BOUNDARY],
                loc="upper center",
                bbox_to_anchor=(0.5, -0.13),
                fontsize=8,
                frameon=False,
            )
    ax.set_xlabel(param_label(x))
    ax.set_ylabel(param_label(y))
    ax.set_title(_drop_title(title or "Stability map", drop), fontsize=10)
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), stem)


def _drop_title(title: str, drop: str | None) -> str:
    """`title` headed by the drop function's name, unless it names it already."""
    name = DROP_TITLES.get(drop or "", drop)
    if not name:
        return title
    before = r"(?<![a-z])(?<!gentle )" if drop == "red" else r"(?<![a-z])"
    if re.search(before + re.escape(name) + r"(?![a-z])", title, flags=re.IGNORECASE):
        return title
    return f"{name}: {title}"


def _extent(xs: np.ndarray, ys: np.ndarray) -> list[float]:
    """The image extent: half a grid step beyond the first and last values."""

    def edges(v: np.ndarray) -> tuple[float, float]:
        """The outer edges of the cells centred on the values `v`."""
        if len(v) == 1:
            return float(v[0]) - 0.5, float(v[0]) + 0.5
        step_lo, step_hi = v[1] - v[0], v[-1] - v[-2]
        return float(v[0] - step_lo / 2), float(v[-1] + step_hi / 2)

    return [*edges(xs), *edges(ys)]


def plot_map(
    curve: pd.DataFrame,
    orbit: pd.DataFrame,
    fixed_points: pd.DataFrame,
    out_dir: str | os.PathLike[str],
    stem: str = "map",
    title: str | None = None,
    q_range: tuple[float, float] | None = None,
) -> list[Path]:
    """The map f(q) with the diagonal, its fixed points, and the cobweb of an orbit."""
    fig, ax = plt.subplots(figsize=(6.0, 5.2))
    ax.plot(curve["q_avg_pkts"], curve["f"], color="black", linewidth=1.2, label="f(q)")
    lo, hi = q_range or (float(curve["q_avg_pkts"].min()), float(curve["q_avg_pkts"].max()))
    ax.plot([lo, hi], [lo, hi], color="gray", linewidth=0.8, linestyle=":", label="q")
    q = orbit["q_avg_pkts"].to_numpy()
    if len(q) > 1:
        xs = np.repeat(q[:-1], 2)
        ys = np.empty_like(xs)
        ys[0::2] = q[:-1]
        ys[1::2] = q[1:]
        ax.plot(xs, ys, color="tab:orange", linewidth=0.7, alpha=0.8, label="orbit (cobweb)")
    for _, fp in fixed_points.iterrows():
        ax.plot(
            [fp["q_avg_pkts"]],
            [fp["q_avg_pkts"]],
            "o",
            color="tab:blue",
            label=f"q* = {fp['q_avg_pkts']:.1f}, λ = {fp['eigenvalue']:.3f}",
        )
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("q_avg at round n (packets)")
    ax.set_ylabel("q_avg at round n+1 (packets)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), stem)
