"""`aqmlab model reproduce self-tuning-red`: the model results of Chen, Hu & Ji, "Self-tuning
random early detection algorithm to improve performance of network transmission", Math.
Probl. Eng. 2011, §3: the worked example after eq. (3.12) (fixed point 345.1, w < 0.1578),
Fig. 3 (q_avg and q against p_max) and Fig. 4 (bifurcation over w from 0.12 to 0.2), each
claim judged against our computation, plus what the map does beyond the paper's range."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..engine.outdir import write_file
from ..engine.parquet import write_table
from ..engine.tables import render_table
from . import api as model
from .text import regimes

PAPER = "self-tuning-red"
REFERENCE = {"drop": "gentle"}
"""The paper's model: gentle RED (§2.1) with the reference constants, which are the
defaults of `aqmlab.model`."""


@dataclass
class Claim:
    what: str
    paper: str
    ours: str
    ok: bool


@dataclass
class Outcome:
    claims: list[Claim] = field(default_factory=list)
    report: Path = Path()
    figures: list[Path] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.claims)

    @property
    def summary(self) -> str:
        rows = [[c.what, c.paper, c.ours, "agrees" if c.ok else "DIFFERS"] for c in self.claims]
        return render_table(["claim", "paper", "aqmlab", "verdict"], rows, text_columns=4)


def _attractor(points: pd.DataFrame, value: float) -> pd.Series:
    values = points["value"].to_numpy()
    nearest = values[np.argmin(np.abs(values - value))]
    return points.loc[points["value"] == nearest, "q_avg_pkts"]


def _row(summary: pd.DataFrame, value: float) -> pd.Series:
    return summary.iloc[int(np.argmin(np.abs(summary["value"].to_numpy() - value)))]


def worked_example(out_dir: Path, outcome: Outcome) -> dict[str, float]:
    """§3.3: q* = 345.1 for p_max = 0.1, w < 0.1578 by eq. (3.12); eq. (3.2) back."""
    from .plots import plot_map

    fp = model.fixed_points(REFERENCE).iloc[0]
    bound_rounded = model.w_bound_eq312(345.1)
    p_max_back = model.p_max_for_target(345.1, {"drop": "red"})
    long = {"iterations": 50_000, "transient": 40_000, "keep": 4}
    below = model.bifurcation("w", [0.155], REFERENCE, **long)
    above = model.bifurcation("w", [0.16], REFERENCE, **long)
    q_below = below.points["q_avg_pkts"].to_numpy()
    q_above = above.points["q_avg_pkts"].to_numpy()
    facts = {
        "q_star_pkts": float(fp["q_avg_pkts"]),
        "p_at_q_star": float(fp["p"]),
        "eigenvalue_w002": float(fp["eigenvalue"]),
        "gain_s": float(fp["gain"]),
        "w_bound": float(fp["w_bound"]),
        "w_bound_eq312_at_q_star": float(fp["w_bound_eq312"]),
        "w_bound_eq312_at_345_1": bound_rounded,
        "p_max_eq32_for_345_1": p_max_back,
        "period_w0155": int(below.summary["period"].iloc[0]),
        "period_w016": int(above.summary["period"].iloc[0]),
        "orbit_w016_low_pkts": float(q_above.min()),
        "orbit_w016_high_pkts": float(q_above.max()),
    }
    write_table(pd.DataFrame([facts]), out_dir / "tables", "worked_example")
    outcome.claims += [
        Claim(
            "fixed point for p_max = 0.1 (§3.3)",
            "345.1",
            f"{facts['q_star_pkts']:.4f}",
            round(facts["q_star_pkts"], 1) == 345.1,
        ),
        Claim(
            "bound on w, eq. (3.12)",
            "0.1578",
            f"{facts['w_bound']:.6f} (eq. (3.12) at 345.1: {bound_rounded:.6f})",
            round(facts["w_bound"], 4) == 0.1578 and round(bound_rounded, 4) == 0.1578,
        ),
        Claim(
            "p_max for q* = 345.1, eq. (3.2)",
            "0.1",
            f"{p_max_back:.6f}",
            abs(p_max_back - 0.1) < 5e-4,
        ),
        Claim(
            "w = 0.155 (below the bound) converges to q*",
            "converges",
            f"period {facts['period_w0155']}, q = {q_below.mean():.4f}",
            facts["period_w0155"] == 1 and abs(q_below.mean() - fp["q_avg_pkts"]) < 1e-3,
        ),
        Claim(
            "w = 0.16 (above the bound): period-2 orbit",
            "period doubling",
            f"period {facts['period_w016']}: {q_above.min():.2f} ↔ {q_above.max():.2f}",
            facts["period_w016"] == 2,
        ),
    ]
    # The two orbits either side of the bound, and the map with the fixed point.
    fig_paths = _plot_worked_example(out_dir)
    params = {**REFERENCE, "w": 0.16}
    orbit = model.orbit(params, 400.0, 80)
    outcome.figures += fig_paths + plot_map(
        model.map_curve(params),
        orbit,
        model.fixed_points(params),
        out_dir / "figures",
        stem="map-w0.16",
        q_range=(250.0, 450.0),
        title="The map at w = 0.16 (gentle RED, p_max = 0.1) and an orbit from 400",
    )
    return facts


def _plot_worked_example(out_dir: Path) -> list[Path]:
    from ..present.plots import plt, save_figure

    fig, axes = plt.subplots(2, 1, figsize=(7.0, 5.0), sharex=True)
    for ax, w, colour in ((axes[0], 0.155, "tab:blue"), (axes[1], 0.16, "tab:red")):
        o = model.orbit({**REFERENCE, "w": w}, 400.0, 150)
        ax.plot(
            o["n"],
            o["q_avg_pkts"],
            ".-",
            markersize=3,
            linewidth=0.5,
            color=colour,
            label=f"w = {w:g}",
        )
        ax.axhline(345.1, color="gray", linestyle=":", linewidth=0.8, label="q* = 345.1")
        ax.set_ylabel("q_avg (packets)")
        ax.set_ylim(320, 410)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    axes[0].set_title(
        "Either side of the bound w < 0.1578: convergence (top), a period-2 orbit (bottom)",
        fontsize=10,
    )
    axes[1].set_xlabel("round trip n")
    fig.tight_layout()
    return save_figure(fig, out_dir / "figures", "worked-example")


def fig3(out_dir: Path, outcome: Outcome, points: int, threads: int) -> None:
    """Fig. 3: q_avg and q against p_max from 0.01 to 1 (w = 0.02)."""
    from .plots import plot_bifurcation

    bif = model.bifurcation(
        "p_max", np.geomspace(0.01, 1.0, points), REFERENCE, keep=300, threads=threads
    )
    write_table(bif.points, out_dir / "tables", "fig3")
    write_table(bif.summary, out_dir / "tables", "fig3_summary")
    outcome.figures += plot_bifurcation(
        bif,
        out_dir / "figures",
        stem="fig3",
        queue=True,
        logx=True,
        title="Fig. 3: average queue q_avg (top) and queue q (middle) vs p_max, w = 0.02",
    )
    s = bif.summary
    low = _attractor(bif.points, 0.01)
    row_low = _row(s, 0.01)
    stable = s[(s["period"] == 1)]
    mid = s[(s["value"] >= 0.05) & (s["value"] <= 0.9)]
    high = s[s["value"] > 0.96]
    high_means = [_attractor(bif.points, v).mean() for v in high["value"]]
    first_unstable = s[(s["value"] > 0.5) & (s["period"] != 1)]["value"].min()
    outcome.claims += [
        Claim(
            "Fig. 3, p_max = 0.01: q_avg oscillates around q_max = 750",
            "around 750",
            f"period {int(row_low['period'])}, q_avg {low.min():.1f} .. {low.max():.1f}",
            int(row_low["period"]) != 1 and abs(low.mean() - 750.0) < 0.05 * 750.0,
        ),
        Claim(
            "Fig. 3: q_avg stabilises within [q_min, q_max] as p_max grows",
            "stable",
            f"period 1 for p_max in [{stable['value'].min():.3f}, {stable['value'].max():.3f}]",
            bool((mid["period"] == 1).all() and mid["q_star_pkts"].between(250.0, 750.0).all()),
        ),
        Claim(
            "Fig. 3, p_max > 0.95: oscillation centred on q_min = 250",
            "> 0.95, around 250",
            f"unstable from p_max = {first_unstable:.3f}, centre "
            f"{min(high_means):.1f} .. {max(high_means):.1f}",
            abs(first_unstable - 0.95) < 0.01
            and all(abs(m - 250.0) < 25.0 for m in high_means)
            and bool((high["period"] != 1).all()),
        ),
    ]


def fig4(out_dir: Path, outcome: Outcome, points: int, threads: int, bound: float) -> dict:
    """Fig. 4: the bifurcation diagram over w from 0.12 to 0.2 (p_max = 0.1)."""
    from .plots import plot_bifurcation

    bif = model.bifurcation(
        "w", np.linspace(0.12, 0.2, points), REFERENCE, iterations=20_000, keep=300, threads=threads
    )
    write_table(bif.points, out_dir / "tables", "fig4")
    write_table(bif.summary, out_dir / "tables", "fig4_summary")
    outcome.figures += plot_bifurcation(
        bif,
        out_dir / "figures",
        stem="fig4",
        w_bound=bound,
        title="Fig. 4: bifurcation diagram of q_avg over w (p_max = 0.1, q* = 345.1)",
    )
    s = bif.summary
    below = s[s["value"] < bound - 1e-3]
    converged = bool((below["period"] == 1).all())
    first2 = s[s["period"] == 2]["value"].min()
    chaos = s[(s["period"] == 0) & (s["lyapunov"] > 0)]
    first_chaos = float(chaos["value"].min()) if len(chaos) else float("nan")
    last2 = s[(s["period"] == 2) & (s["value"] < first_chaos)]
    top = _attractor(bif.points, float(last2["value"].max())).max() if len(last2) else np.nan
    q1 = model.equilibrium(REFERENCE)["q1_pkts"]
    merge = _bands_merge(bif.points, first_chaos)
    outcome.claims += [
        Claim(
            "Fig. 4: w < 0.1578 converges to q* = 345.1",
            "converges",
            f"period 1 for every w < {bound - 1e-3:.4f}: {'yes' if converged else 'no'}",
            converged,
        ),
        Claim(
            "Fig. 4: period doubling at the bound",
            "PDB at 0.1578",
            f"period 2 from w = {first2:.5f}",
            abs(first2 - bound) < 2e-3,
        ),
        Claim(
            "Fig. 4: then chaos",
            "chaos",
            f"positive Lyapunov exponent from w = {first_chaos:.5f} up to 0.2",
            bool(len(chaos)) and first_chaos < 0.2,
        ),
    ]
    return {
        "first_period2": float(first2),
        "first_chaos": first_chaos,
        "period2_top_pkts": float(top),
        "q1_pkts": float(q1),
        "bands_merge": merge,
    }


def _bands(q: np.ndarray) -> int:
    """Clusters of the recorded iterates split by gaps wider than 5% of their range."""
    q = np.sort(q)
    span = q[-1] - q[0]
    return 1 + int((np.diff(q) > 0.05 * span).sum()) if span > 0 else 1


def _bands_merge(points: pd.DataFrame, first_chaos: float) -> float:
    """The first value past `first_chaos` from which the chaotic attractor is one band at
    (at least) 80% of the following values; NaN if it never is."""
    counts = [
        (v, _bands(g["q_avg_pkts"].to_numpy()))
        for v, g in points.groupby("value")
        if v >= first_chaos
    ]
    for i, (v, _) in enumerate(counts):
        rest = [n for _, n in counts[i:]]
        if rest.count(1) >= 0.8 * len(rest) and counts[i][1] == 1:
            return float(v)
    return float("nan")


def beyond(out_dir: Path, outcome: Outcome, points: int, threads: int, bound: float) -> dict:
    """What the map does past the paper's range: w from 0.12 to 1, and stability maps."""
    from .plots import plot_bifurcation, plot_stability_map

    bif = model.bifurcation(
        "w", np.linspace(0.12, 1.0, points), REFERENCE, iterations=20_000, keep=300, threads=threads
    )
    write_table(bif.summary, out_dir / "tables", "fig4_extended_summary")
    outcome.figures += plot_bifurcation(
        bif,
        out_dir / "figures",
        stem="fig4-extended",
        w_bound=bound,
        title="Beyond Fig. 4: w from 0.12 to 1 (p_max = 0.1)",
    )
    ws = np.linspace(0.01, 1.0, 60)
    red_map = model.stability_map(
        "p_max", np.linspace(0.01, 1.0, 60), "w", ws, REFERENCE, threads=threads
    )
    write_table(red_map, out_dir / "tables", "stability_map_gentle")
    outcome.figures += plot_stability_map(
        red_map,
        "p_max",
        "w",
        out_dir / "figures",
        stem="stability-map-gentle",
        title="Gentle RED, p_max × w, coloured by the Lyapunov exponent",
    )
    beta = {"drop": "betared", "q_target_pkts": 345.1, "p_max_from_target": True}
    # θ stops at 0.96: from θ ≈ 0.98 the Beta curve through q* = 345.1 in [250, 750] needs a
    # shape below 0.01, which BetaRED refuses (docs/aqm/betared.md).
    beta_map = model.stability_map(
        "theta", np.linspace(0.02, 0.96, 60), "w", ws, beta, threads=threads
    )
    write_table(beta_map, out_dir / "tables", "stability_map_betared")
    outcome.figures += plot_stability_map(
        beta_map,
        "theta",
        "w",
        out_dir / "figures",
        stem="stability-map-betared",
        title="BetaRED, θ × w, p_max set so that q* = 345.1",
    )
    return {"segments": regimes(bif.summary, limit=40), "summary": bif.summary}


def _report(
    out_dir: Path, outcome: Outcome, facts: dict, f4: dict, extra: dict, points: int
) -> str:
    s = extra["summary"]
    windows = []
    period = s["period"].to_numpy()
    values = s["value"].to_numpy()
    start = 0
    for i in range(1, len(period) + 1):
        if i == len(period) or period[i] != period[start]:
            if period[start] > 2 and values[start] > f4["first_chaos"]:
                windows.append(
                    f"period {period[start]} at w ≈ {values[start]:.3f}"
                    + (f"–{values[i - 1]:.3f}" if i - 1 > start else "")
                )
            start = i
    chaos_frac = float(((s["period"] == 0) & (s["lyapunov"] > 0)).mean())
    lines = [
        "# Self-tuning RED (Chen, Hu & Ji 2011): the model results",
        "",
        f"Command: `aqmlab model reproduce {PAPER}` ({points} values per diagram, "
        f"{outcome.wall_s:.1f} s). The model is the map of eq. (2.3) with gentle RED "
        "(eq. (2.1)) and the reference constants of §3.1: C = 75 Mb/s, K = √1.5, M = 4000 bit, "
        "d = 0.1 s, N = 250, q_min = 250, q_max = 750, B = 3750, w = 0.02, p_max = 0.1.",
        "",
        "## Claims",
        "",
        "| claim | paper | aqmlab | verdict |",
        "|---|---|---|---|",
        *[
            f"| {c.what} | {c.paper} | {c.ours} | {'agrees' if c.ok else 'DIFFERS'} |"
            for c in outcome.claims
        ],
        "",
        "## The worked example (after eq. (3.12))",
        "",
        f"- Fixed point q* = {facts['q_star_pkts']:.4f} packets, "
        f"p(q*) = {facts['p_at_q_star']:.5f}.",
        f"- Eigenvalue at w = 0.02: λ = 1 − w·(1 + s) = {facts['eigenvalue_w002']:.4f} with "
        f"s = {facts['gain_s']:.4f} (eq. (3.10)).",
        f"- Stable while w < 2/(1 + s) = {facts['w_bound']:.6f}; eq. (3.12) gives "
        f"{facts['w_bound_eq312_at_q_star']:.6f} at q* and {facts['w_bound_eq312_at_345_1']:.6f} "
        "at the rounded 345.1: the paper's 0.1578.",
        f"- w = 0.155 converges (period {facts['period_w0155']}); w = 0.16 settles on a period-"
        f"{facts['period_w016']} orbit {facts['orbit_w016_low_pkts']:.2f} ↔ "
        f"{facts['orbit_w016_high_pkts']:.2f}.",
        "",
        "## What the map shows beyond the period-2 orbit",
        "",
        f"- The period-2 orbit born at w = {facts['w_bound']:.4f} grows until its upper point "
        f"reaches q1 = {f4['q1_pkts']:.1f} (where Q(p) hits 0 and the map has a corner) at "
        f"w ≈ {f4['first_chaos']:.4f} (upper point {f4['period2_top_pkts']:.1f}). There the "
        "cascade stops: a border-collision bifurcation takes the orbit straight into a chaotic "
        "attractor, with no period-4, period-8, … stage (the border-collision route that Ranjan, "
        "Abed & La report for this map). The chaotic attractor has two bands, one either side "
        "of q*, "
        + (
            f"which merge into one near w ≈ {f4['bands_merge']:.3f}."
            if np.isfinite(f4["bands_merge"])
            else "up to w = 0.2."
        )
        + " The Lyapunov exponent jumps from negative to positive at the collision.",
        f"- Past the paper's range (w up to 1, `figures/fig4-extended.png`) the attractor widens "
        f"to the buffer limits; {100 * chaos_frac:.0f}% of the values have a positive Lyapunov "
        "exponent, interleaved with periodic windows: "
        + ("; ".join(windows[:12]) if windows else "none found")
        + (" …" if len(windows) > 12 else "")
        + ". Near w = 1 the orbit alternates between the empty and the full buffer (period 2, "
        "superstable: f′ = 1 − w = 0 on the clamped branches).",
        "",
        "Segments of the extended sweep (consecutive values with the same period):",
        "",
        "```",
        extra["segments"],
        "```",
        "",
        "## Figures and tables",
        "",
        *[f"- `{p.relative_to(out_dir).as_posix()}`" for p in outcome.figures],
        "- `tables/`: `worked_example`, `fig3` and `fig4` (iterates), `fig3_summary`, "
        "`fig4_summary`, `fig4_extended_summary` (period, Lyapunov exponent, fixed point, "
        "eigenvalue per value), `stability_map_gentle`, `stability_map_betared`, each as "
        "Parquet and CSV.",
        "",
    ]
    return "\n".join(lines)


def reproduce_self_tuning_red(out_dir: str | Path, points: int = 1000, threads: int = 0) -> Outcome:
    """Write the worked example, Figs. 3 and 4 and the extended diagrams into `out_dir`
    (`figures/`, `tables/`, `report.md`)."""
    out_dir = Path(out_dir)
    t0 = time.perf_counter()
    outcome = Outcome()
    facts = worked_example(out_dir, outcome)
    fig3(out_dir, outcome, points, threads)
    f4 = fig4(out_dir, outcome, points, threads, facts["w_bound"])
    extra = beyond(out_dir, outcome, points, threads, facts["w_bound"])
    outcome.wall_s = time.perf_counter() - t0
    outcome.report = out_dir / "report.md"
    write_file(outcome.report, _report(out_dir, outcome, facts, f4, extra, points))
    return outcome
