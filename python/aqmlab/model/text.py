"""Text views of the model's results for the terminal and the reports: the parameters in force
(`describe`), the fixed points (`fixed_point_table`) and a sweep's regimes (`regimes`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.tables import render_table
from . import api as model

if TYPE_CHECKING:
    import pandas as pd


def describe(params: dict[str, Any]) -> str:
    """One line with the parameters in force."""
    p = {**model.defaults(), **params}
    eq = model.equilibrium(params)
    drop = {"red": "RED", "gentle": "gentle RED", "betared": "BetaRED"}[p["drop"]]
    extra = (
        f", θ = {p['theta']:g}, q_target = {p['q_target_pkts']:g}" if p["drop"] == "betared" else ""
    )
    return (
        f"{drop}: N = {p['n_flows']:g}, C = {p['capacity_mbps']:g} Mb/s, d = {p['d_s']:g} s, "
        f"M = {p['packet_bits']:g} bit, B = {p['buffer_pkts']:g} pkts, K = {p['k']:.4g}; "
        f"q_min = {p['q_min_pkts']:g}, q_max = {p['q_max_pkts']:g}, p_max = {eq['p_max']:.4g}, "
        f"w = {p['w']:g}{extra}"
    )


def fixed_point_table(fp: pd.DataFrame) -> str:
    headers = ["q* (pkts)", "p(q*)", "eigenvalue", "stable for w <", "eq. (3.12)", "stable"]
    rows = [
        [
            f"{r.q_avg_pkts:.4f}",
            f"{r.p:.5f}",
            f"{r.eigenvalue:.4f}",
            f"{r.w_bound:.4f}",
            "n/a" if np.isnan(r.w_bound_eq312) else f"{r.w_bound_eq312:.4f}",
            "yes" if r.stable else "no",
        ]
        for r in fp.itertuples()
    ]
    return render_table(headers, rows, text_columns=0)


def regimes(summary: pd.DataFrame, limit: int = 30) -> str:
    """Consecutive values with the same period as one row each."""
    rows = []
    period = summary["period"].to_numpy()
    values = summary["value"].to_numpy()
    lam = summary["lyapunov"].to_numpy()
    start = 0
    for i in range(1, len(period) + 1):
        if i == len(period) or period[i] != period[start]:
            p = int(period[start])
            seg = slice(start, i)
            kind = f"period {p}" if p else "no period (chaos if λ > 0)"
            rows.append(
                [
                    f"{values[start]:.6g}",
                    f"{values[i - 1]:.6g}",
                    kind,
                    f"{lam[seg].min():.3f} .. {lam[seg].max():.3f}",
                ]
            )
            start = i
    text = render_table(["from", "to", "orbit", "Lyapunov exponent"], rows[:limit], 0)
    if len(rows) > limit:
        text += f"\n... {len(rows) - limit} more segments (see the summary table)"
    return text
