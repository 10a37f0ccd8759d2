"""A first study with aqmlab: one run, then a small sweep over AQMs and numbers of flows.

    .venv/bin/python examples/first_study.py [OUT_DIR]

Uses the BetaRED paper's dumbbell (experiments/betared/scenario1.toml: 50 Mb/s bottleneck,
1000-packet buffer, TCP Cubic, 250 s measured over the last 125 s) and writes into OUT_DIR, a
new or empty folder (default: a new folder results/first-study, -2, -3, ...):

    run-red-50/                     one run, as `aqmlab run` writes it, and its figure in
                                    figures/run-red-50.png|svg (as `aqmlab plot` draws it)
    sweep.csv                       one row per run of the sweep: AQM, flows, metrics
    sweep.png, sweep.svg            queue, drop rate and delay against the number of flows

Ten runs of 250 simulated seconds: about ten seconds on one core.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import aqmlab  # noqa: E402
from aqmlab.data import resolve  # noqa: E402
from aqmlab.present.run_plots import plot_run  # noqa: E402

SCENARIO = resolve("betared/scenario1")
"""The built-in scenario, experiments/betared/scenario1.toml, wherever aqmlab is installed."""
AQMS = ["droptail", "red", "betared"]
FLOWS = [20, 50, 100]
METRICS = [
    "avg_queue_pkts",
    "drop_rate",
    "throughput_mbps",
    "delay_mean_ms",
    "jitter_ms",
    "jain_fairness",
]


def output_folder(argv: list[str]) -> Path:
    """The folder given on the command line (new or empty), or a new one under results/."""
    if len(argv) > 1:
        sys.exit("usage: first_study.py [OUT_DIR]")
    if argv:
        out = Path(argv[0])
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            sys.exit(f"first_study.py: {out} is not a new or empty folder; give another one")
    else:
        out, n = Path("results") / "first-study", 1
        while out.exists():
            n += 1
            out = Path("results") / f"first-study-{n}"
    out.mkdir(parents=True, exist_ok=True)
    return out


def one_run(base: aqmlab.Scenario, out: Path) -> None:
    """Step 1: one run with RED and 50 flows; its tables are pandas DataFrames."""
    scenario = base.with_({"queue.aqm": "red", "traffic.schedule.flows": 50})
    print("RED as the run uses it (defaults filled in):", scenario.get("queue.red"))
    result = aqmlab.run(scenario)
    table = result.summary[["aqm", "flows_total"] + METRICS]  # a one-row DataFrame
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))

    ts = result.timeseries  # every 10 ms: t_s, queue_pkts, aqm_q_avg, aqm_p, ...
    start, end = result.summary_dict["window_start_s"], result.summary_dict["window_end_s"]
    window = ts[(ts["t_s"] >= start) & (ts["t_s"] < end)]
    print(
        f"queue in the window {start:g}-{end:g} s: mean {window['queue_pkts'].mean():.1f}, "
        f"95th percentile {window['queue_pkts'].quantile(0.95):.0f} packets; "
        f"RED's p averaged {window['aqm_p'].mean():.4f}"
    )
    flows = result.flows.sort_values("throughput_mbps")  # one row per flow
    print(
        f"slowest flow {flows['flow'].iloc[0]}: {flows['throughput_mbps'].iloc[0]:.2f} Mb/s, "
        f"fastest flow {flows['flow'].iloc[-1]}: {flows['throughput_mbps'].iloc[-1]:.2f} Mb/s"
    )
    run_dir = result.write(out / "run-red-50")  # same files as `aqmlab run`
    plot_run(result, run_dir / "figures", "run-red-50")  # same figure as `aqmlab plot`


def sweep(base: aqmlab.Scenario) -> pd.DataFrame:
    """Step 2: every AQM at every number of flows, one tidy row per run."""
    rows = []
    for aqm in AQMS:
        for flows in FLOWS:
            result = aqmlab.run(base.with_({"queue.aqm": aqm, "traffic.schedule.flows": flows}))
            metrics = {m: result.summary_dict[m] for m in METRICS}
            rows.append({"aqm": aqm, "flows": flows, **metrics})
            print(f"  {aqm:>8}, {flows:3d} flows: avg queue {metrics['avg_queue_pkts']:6.1f} pkts")
    return pd.DataFrame(rows)


def plot_sweep(df: pd.DataFrame, base: aqmlab.Scenario, out: Path) -> None:
    """Step 3: one line per AQM against the number of flows, as PNG and SVG."""
    target = base.get("measure.target_queue_pkts")
    panels = [
        ("avg_queue_pkts", 1.0, "average queue (packets)"),
        ("drop_rate", 100.0, "drop rate (%)"),
        ("delay_mean_ms", 1.0, "one-way delay (ms)"),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 4))
    for ax, (metric, scale, label) in zip(axes, panels):
        for aqm, sub in df.groupby("aqm", sort=False):
            ax.plot(sub["flows"], sub[metric] * scale, marker="o", label=aqm)
        if metric == "avg_queue_pkts":
            ax.axhline(target, color="black", ls="--", lw=1, label=f"target ({target:g})")
        ax.set_xlabel("number of flows N")
        ax.set_ylabel(label)
        ax.set_xticks(FLOWS)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    rate, duration = base.get("topology.bottleneck_rate_mbps"), base.get("duration_s")
    fig.suptitle(f"{SCENARIO.name}: {rate:g} Mb/s bottleneck, one {duration:g} s run per point")
    fig.tight_layout()
    with plt.rc_context({"svg.hashsalt": "aqmlab"}):  # byte-identical files on every run
        fig.savefig(out / "sweep.png", dpi=110, metadata={"Software": None})
        fig.savefig(out / "sweep.svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)


def main(argv: list[str]) -> int:
    out = output_folder(argv)
    base = aqmlab.Scenario.load(SCENARIO)
    print(f"1. one run of {SCENARIO.name}")
    one_run(base, out)
    print(f"\n2. a sweep: {len(AQMS)} AQMs x {len(FLOWS)} numbers of flows")
    df = sweep(base)
    df.to_csv(out / "sweep.csv", index=False, lineterminator="\n")
    print("\naverage queue (packets):")
    print(df.pivot(index="flows", columns="aqm", values="avg_queue_pkts")[AQMS].round(1))
    plot_sweep(df, base, out)
    print(f"\nresults: {out}/run-red-50/, sweep.csv, sweep.png, sweep.svg")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
