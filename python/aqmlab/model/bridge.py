"""The bridge between the model and the packet simulator: on the BetaRED paper's dumbbell
(scenario 1: N long-lived TCP CUBIC flows, 50 Mb/s, 250 s), the model's equilibrium next to
the simulated average queue over a sweep of N and of θ.

The model gets the same network: C = 50 Mb/s, M = 1000 bytes = 8000 bit, B = 1000 packets,
d = the round-trip propagation delay 2·(1 + 10 + 1) ms = 24 ms (queueing delay is the model's
own q·M/C), and BetaRED's curve with the scenario's q_min, q_max, q_target, p_max and θ. The
fixed point does not depend on w; the simulator's per-packet weight w_red becomes the model's
per-round-trip weight w = 1 − (1 − w_red)^n with n = C·R/M = C·d/M + q* packets per round trip
(self-tuning-RED paper §2.2), which decides whether the model expects the average to sit still
or to oscillate. K is shown for two values: √1.5 (Reno acknowledging every packet, the
paper's) and √0.75 (an ACK per two packets, K = √(3/(2b)) with b = 2, as the ns3 preset's
delayed ACKs), and the K the simulation itself implies through eq. (3.4) is reported.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import EXPERIMENTS
from ..engine.outdir import open_resumable, write_file
from ..engine.parquet import write_table
from ..engine.scenario import Scenario
from ..engine.store import RunStore
from ..engine.tables import render_table
from ..sweeps.experiment import RunSpec, run_id
from ..sweeps.grid import execute
from . import api as model

SCENARIO = EXPERIMENTS / "betared" / "scenario1.toml"
BETARED = {
    "queue.aqm": "betared",
    "queue.betared.q_min_pkts": 0.0,
    "queue.betared.q_max_pkts": 1000.0,
    "queue.betared.q_target_pkts": 250.0,
    "queue.betared.p_max": 1.0,
    "queue.betared.w": 0.1,
}
"""BetaRED as the BetaRED paper's Figs. 3-5 run it (§4.3)."""
THETA = 0.1
N_VALUES = (25, 50, 100, 200, 400, 700, 1000)
THETA_VALUES = (0.05, 0.1, 0.2, 0.3, 0.5)
N_FOR_THETA = 100
SEED = 1

CAPACITY_MBPS = 50.0
PACKET_BITS = 8000.0
BUFFER_PKTS = 1000.0
D_S = 2 * (1.0 + 10.0 + 1.0) / 1000.0
K_VALUES = {
    "K = √1.5 (Reno, ACK per packet)": math.sqrt(1.5),
    "K = √0.75 (ACK per 2 packets)": math.sqrt(0.75),
}


@dataclass
class BridgeOutcome:
    table: pd.DataFrame
    text: str
    figure: Path
    failed: list[tuple[str, str]] = field(default_factory=list)


def model_params(n_flows: float, theta: float, k: float, w: float = 0.02) -> dict:
    """The model of the dumbbell with BetaRED."""
    return {
        "drop": "betared",
        "n_flows": float(n_flows),
        "capacity_mbps": CAPACITY_MBPS,
        "packet_bits": PACKET_BITS,
        "buffer_pkts": BUFFER_PKTS,
        "d_s": D_S,
        "k": float(k),
        "q_min_pkts": BETARED["queue.betared.q_min_pkts"],
        "q_max_pkts": BETARED["queue.betared.q_max_pkts"],
        "q_target_pkts": BETARED["queue.betared.q_target_pkts"],
        "p_max": BETARED["queue.betared.p_max"],
        "theta": float(theta),
        "w": w,
    }


def w_per_round_trip(w_red: float, packets_per_rtt: float) -> float:
    """w ≈ 1 − (1 − w_red)^n (self-tuning-RED paper §2.2), n packets averaged per round trip."""
    return 1.0 - (1.0 - w_red) ** packets_per_rtt


def model_prediction(n_flows: float, theta: float, k: float) -> dict[str, float]:
    """The fixed point, the per-round-trip w, and the attractor at that w."""
    fp = model.fixed_points(model_params(n_flows, theta, k))
    if fp.empty:
        return {"q_star_pkts": math.nan}
    q_star = float(fp["q_avg_pkts"].iloc[0])
    bdp = CAPACITY_MBPS * 1e6 * D_S / PACKET_BITS
    w = w_per_round_trip(BETARED["queue.betared.w"], bdp + q_star)
    w = min(max(w, 1e-12), 1.0)
    bif = model.bifurcation("w", [w], model_params(n_flows, theta, k), keep=200)
    q = bif.points["q_avg_pkts"]
    return {
        "q_star_pkts": q_star,
        "p_star": float(fp["p"].iloc[0]),
        "w_model": w,
        "w_bound": float(fp["w_bound"].iloc[0]),
        "model_period": int(bif.summary["period"].iloc[0]),
        "model_mean_pkts": float(q.mean()),
        "model_min_pkts": float(q.min()),
        "model_max_pkts": float(q.max()),
    }


def _specs(quick: bool) -> list[RunSpec]:
    base = Scenario.load(SCENARIO).with_(BETARED)
    if quick:
        base = base.with_({"duration_s": 100.0, "measure.window": "second_half"})
    points = [(n, THETA, "N") for n in N_VALUES]
    points += [(N_FOR_THETA, th, "theta") for th in THETA_VALUES]
    specs = []
    for n, theta, sweep in points:
        text = base.with_({"traffic.schedule.flows": int(n), "queue.betared.theta": theta})
        resolved = text.resolved()
        specs.append(
            RunSpec(
                run_id(resolved, SEED),
                resolved,
                SEED,
                {"sweep": sweep, "n_flows": n, "theta": theta},
            )
        )
    return specs


def _k_effective(row: pd.Series) -> float:
    """K from eq. (3.4), N·M·K/(√p·(d + q·M/C)) = C, with the measured drop rate and queue."""
    c_pps = CAPACITY_MBPS * 1e6 / PACKET_BITS
    rtt = D_S + row["avg_queue_pkts"] / c_pps
    return c_pps / row["n_flows"] * math.sqrt(row["drop_rate"]) * rtt


def run_bridge(
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    jobs: int | None = None,
    progress: bool = True,
    overwrite: bool = False,
) -> BridgeOutcome:
    """Simulate the sweeps (resumable: finished runs under `out_dir`/runs are reused),
    compute the model's predictions, write `bridge.parquet|csv`, `bridge.png|svg` and
    `bridge.md`. The output folder follows `aqmlab.engine.outdir`'s rules (checked first)."""
    out_dir = Path(out_dir)
    specs = _specs(quick)
    open_resumable(out_dir, "bridge", overwrite)
    outcome = execute(specs, out_dir, jobs=jobs, progress=progress, desc="bridge", kind="bridge")
    store = RunStore(out_dir)
    rows = []
    for spec in specs:
        if not store.has(spec.run_id):
            continue
        s = store.read(spec.run_id)["summary"]
        row = dict(spec.params)
        for key in (
            "avg_queue_aqm_pkts",
            "avg_queue_pkts",
            "std_queue_pkts",
            "drop_rate",
            "link_efficiency",
            "throughput_mbps",
        ):
            row[key] = s[key]
        row["k_effective"] = _k_effective(pd.Series(row))
        curve = model.map_curve(model_params(row["n_flows"], row["theta"], 1.0), points=2001)
        row["p_at_sim_q_avg"] = float(
            np.interp(row["avg_queue_aqm_pkts"], curve["q_avg_pkts"], curve["p"])
        )
        for k in K_VALUES.values():
            tag = "reno" if k > 1.0 else "delack"
            for key, value in model_prediction(row["n_flows"], row["theta"], k).items():
                row[f"{key}_{tag}"] = value
        rows.append(row)
    df = pd.DataFrame(rows)
    write_table(df, out_dir, "bridge")
    figure = _plot(df, out_dir)
    text = _table_text(df)
    write_file(out_dir / "bridge.md", _write_up(text, quick))
    return BridgeOutcome(df, text, figure, outcome.failed)


def _table_text(df: pd.DataFrame) -> str:
    headers = [
        "sweep",
        "N",
        "θ",
        "sim q_avg",
        "sim q (std)",
        "drop rate",
        "p(q_avg)",
        "K (3.4)",
        "q* K=√1.5",
        "q* K=√0.75",
        "w_model",
        "model orbit (K=√0.75)",
    ]
    rows = []
    for r in df.itertuples():
        orbit = (
            "fixed point"
            if r.model_period_delack == 1
            else f"{r.model_min_pkts_delack:.0f}..{r.model_max_pkts_delack:.0f}"
            + (f" (period {r.model_period_delack})" if r.model_period_delack else " (chaos)")
        )
        rows.append(
            [
                r.sweep,
                f"{r.n_flows:g}",
                f"{r.theta:g}",
                f"{r.avg_queue_aqm_pkts:.1f}",
                f"{r.avg_queue_pkts:.1f} ({r.std_queue_pkts:.1f})",
                f"{100 * r.drop_rate:.2f}%",
                f"{100 * r.p_at_sim_q_avg:.2f}%",
                f"{r.k_effective:.3f}",
                f"{r.q_star_pkts_reno:.1f}",
                f"{r.q_star_pkts_delack:.1f}",
                f"{r.w_model_delack:.3f}",
                orbit,
            ]
        )
    return render_table(headers, rows, text_columns=1)


def _plot(df: pd.DataFrame, out_dir: Path) -> Path:
    from ..present.plots import plt, save_figure
    from .plots import queue_error_bars

    fig, axes = plt.subplots(1, 2, figsize=(11.0, 4.3))
    for ax, sweep, x, label in (
        (axes[0], "N", "n_flows", "number of flows N"),
        (axes[1], "theta", "theta", "θ"),
    ):
        sim = df[df["sweep"] == sweep].sort_values(x)
        if sim.empty:
            continue
        queue_error_bars(
            ax,
            sim[x],
            sim["avg_queue_pkts"],
            sim["std_queue_pkts"],
            "simulated queue over time in the window",
            fmt="o",
            color="gray",
            markersize=3,
            capsize=2,
        )
        ax.plot(
            sim[x],
            sim["avg_queue_aqm_pkts"],
            "s",
            color="black",
            markersize=5,
            label="simulated q_avg (AQM's average)",
        )
        lo, hi = float(sim[x].min()), float(sim[x].max())
        grid = np.geomspace(lo, hi, 60) if sweep == "N" else np.linspace(lo, hi, 60)
        for (name, k), colour in zip(K_VALUES.items(), ("tab:blue", "tab:orange")):
            q = []
            for v in grid:
                params = model_params(
                    v if sweep == "N" else N_FOR_THETA, THETA if sweep == "N" else v, k
                )
                fp = model.fixed_points(params)
                q.append(float(fp["q_avg_pkts"].iloc[0]) if len(fp) else np.nan)
            ax.plot(grid, q, color=colour, linewidth=1.5, label=f"model q*, {name}")
        ax.axhline(
            BETARED["queue.betared.q_target_pkts"],
            color="green",
            linestyle=":",
            linewidth=1,
            label="q_target",
        )
        if sweep == "N":
            ax.set_xscale("log")
            ax.set_title(f"BetaRED, θ = {THETA:g}: equilibrium vs N", fontsize=10)
        else:
            ax.set_title(f"BetaRED, N = {N_FOR_THETA}: equilibrium vs θ", fontsize=10)
        ax.set_xlabel(label)
        ax.set_ylabel("average queue (packets)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, out_dir, "bridge")[0]


def _write_up(text: str, quick: bool) -> str:
    window = "the last 50 s of 100 s" if quick else "the last 125 s of 250 s"
    return "\n".join(
        [
            "# Model vs simulation on the BetaRED dumbbell",
            "",
            f"Command: `aqmlab model bridge{' --quick' if quick else ''}`. Simulated: scenario 1 "
            f"(TCP CUBIC, ns3 preset, 50 Mb/s, B = 1000), BetaRED q_min 0, q_max 1000, q_target "
            f"250, p_max 1, w 0.1 per packet; measured over {window}. Model: C = 50 Mb/s, "
            f"M = 8000 bit, B = 1000, d = {1000 * D_S:g} ms, the same BetaRED curve.",
            "",
            "```",
            text,
            "```",
            "",
            "Columns: `sim q_avg` is the mean of BetaRED's averaged queue, `sim q` the "
            "time-weighted queue and its standard deviation, `p(q_avg)` the drop curve at the "
            "measured q_avg, `K (3.4)` the K that the measured drop rate and queue imply "
            "through eq. (3.4), `q*` the model's fixed point for two K, "
            "`w_model` = 1 − (1 − 0.1)^n with n = C·d/M + q* packets per round trip, and the "
            "model's orbit at that w. See docs/model.md for the discussion.",
            "",
        ]
    )
