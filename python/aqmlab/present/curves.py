"""Drop-probability curves of BetaRED for several θ, with RED for comparison (the BetaRED
paper's Fig. 2: the smaller σ = θ·sqrt(μ(1−μ)), the more the drop probability concentrates
around q_target)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..engine import aqm
from ..sweeps.experiment import format_value
from .plots import plt, save_figure


def curves_table(
    thetas: Sequence[float],
    q_min: float = 0.0,
    q_max: float = 1000.0,
    q_target: float = 250.0,
    p_max: float = 1.0,
    red: bool = True,
    limit_pkts: int = 1000,
    points: int = 1001,
) -> pd.DataFrame:
    """Long table `aqm`, `theta`, `q_avg_pkts`, `p`: BetaRED for each θ (and RED with the
    same q_min, q_max, p_max) at `points` values of q_avg from 0 to `limit_pkts`."""
    q = np.linspace(0.0, float(limit_pkts), points)
    frames = []
    for theta in thetas:
        p = aqm.drop_curve(
            "betared",
            q,
            limit_pkts=limit_pkts,
            q_min_pkts=float(q_min),
            q_max_pkts=float(q_max),
            q_target_pkts=float(q_target),
            p_max=float(p_max),
            theta=float(theta),
        )
        frames.append(
            pd.DataFrame({"aqm": "betared", "theta": float(theta), "q_avg_pkts": q, "p": p})
        )
    if red:
        p = aqm.drop_curve(
            "red",
            q,
            limit_pkts=limit_pkts,
            q_min_pkts=float(q_min),
            q_max_pkts=float(q_max),
            p_max=float(p_max),
        )
        frames.append(pd.DataFrame({"aqm": "red", "theta": np.nan, "q_avg_pkts": q, "p": p}))
    return pd.concat(frames, ignore_index=True)


def plot_curves(
    df: pd.DataFrame, out_dir: str | os.PathLike[str], q_target: float, stem: str = "curves"
) -> list[Path]:
    """The curves of `curves_table` as `<stem>.png` and `<stem>.svg`."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for theta, sub in df[df["aqm"] == "betared"].groupby("theta", sort=True):
        ax.plot(
            sub["q_avg_pkts"], sub["p"], linewidth=1.6, label=f"BetaRED, θ = {format_value(theta)}"
        )
    red = df[df["aqm"] == "red"]
    if not red.empty:
        ax.plot(
            red["q_avg_pkts"],
            red["p"],
            color="black",
            linestyle=":",
            linewidth=1.6,
            label="RED (linear)",
        )
    ax.axvline(q_target, color="gray", linestyle="--", linewidth=1, label="q_target")
    ax.set_xlabel("averaged queue length q_avg (packets)")
    ax.set_ylabel("drop probability p")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(
        f"Drop probability curves (cf. BetaRED paper Fig. 2), q_target = {format_value(q_target)}",
        fontsize=10,
    )
    fig.tight_layout()
    return save_figure(fig, Path(out_dir), stem)
