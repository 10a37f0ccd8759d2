"""The reproduction of Chen, Hu & Ji (2011): which experiment gives each of Figs. 5–7 and the
four experiments of Table 1, the published numbers (`experiments/chen2011/published.csv`), the
paper's statistics computed from our stored time series, the side-by-side table, Figs. 5–7 in
the paper's layout, and the model half (`aqmlab model reproduce self-tuning-red`) under
`model/`. The parts are in `spec`, the report in `report`, the claims in `claims`; `PAPER` is what
`aqmlab reproduce chen2011` runs."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ...data import EXPERIMENTS
from ...engine.parquet import write_table
from ...present.plots import plt, save_figure
from ..base import Paper, ReproductionRuns
from . import claims as claims_chen2011
from . import report as chen2011_report
from .spec import (
    FIGURES,
    MEAN,
    METRICS,
    P_MAX_END,
    PARTS,
    SCHEMES,
    SETTLE,
    SOURCES,
    STD,
    TARGET_PKTS,
    TITLE,
    Source,
)

if TYPE_CHECKING:
    from ..claims import Claim


def experiments_root() -> Path:
    """The paper's shipped scenario and experiment files and published numbers."""
    return EXPERIMENTS / "chen2011"


def published(path: Path | None = None) -> pd.DataFrame:
    """The paper's numbers: one row per (experiment, aqm, metric)."""
    path = path or experiments_root() / "published.csv"
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return pd.DataFrame(
        [
            {
                "experiment": r["experiment"],
                "aqm": r["aqm"],
                "metric": r["metric"],
                "published": float(r["printed"]),
            }
            for r in rows
        ],
        columns=["experiment", "aqm", "metric", "published"],
    )


def queue_stats(traces: pd.DataFrame, duration_s: float) -> dict[str, float]:
    """The paper's statistics of one run: mean and standard deviation (population) of the
    instantaneous queue as recorded (every 0.1 s) over the second half of the run (§5.3:
    "for second half (50 s)"), and the last p_max of an AQM that adapts one (NaN otherwise)."""
    t = traces["t_s"]
    q = traces.loc[(t >= duration_s / 2) & (t <= duration_s), "queue_pkts"].astype(float)
    p_max = traces["aqm_p_max"].iloc[-1] if "aqm_p_max" in traces else math.nan
    return {MEAN: float(q.mean()), STD: float(q.std(ddof=0)), P_MAX_END: float(p_max)}


def _specs(runs: ReproductionRuns, source: Source) -> list:
    specs = runs.specs_of.get(source.experiment, [])
    if source.axis is not None:
        name, value = source.axis
        specs = [s for s in specs if s.params.get(name) == value]
    return sorted(specs, key=lambda s: s.seed)


def per_seed(runs: ReproductionRuns) -> pd.DataFrame:
    """One row per (experiment, aqm, metric, seed) with a stored run: the second-half mean and
    STD, the transient time (`settle_time_s` over the whole run, infinite when the queue
    never settles) and the last p_max."""
    rows = []
    for exp_id, source in SOURCES.items():
        for spec in _specs(runs, source):
            if not runs.store.has(spec.run_id, traces=True):
                continue
            summary = runs.store.read(spec.run_id)["summary"]
            values = queue_stats(runs.store.read_traces(spec.run_id), summary["duration_s"])
            settle = summary[SETTLE]
            values[SETTLE] = math.inf if settle is None or math.isnan(settle) else settle
            aqm = spec.params.get("aqm", "self_tuning_red")
            for metric, value in values.items():
                rows.append(
                    {
                        "experiment": exp_id,
                        "aqm": aqm,
                        "metric": metric,
                        "seed": spec.seed,
                        "value": value,
                    }
                )
    return pd.DataFrame(rows, columns=["experiment", "aqm", "metric", "seed", "value"])


def ours(seeds: pd.DataFrame) -> pd.DataFrame:
    """Our value of every (experiment, aqm, metric): the mean over the seeds, their number and
    their range (min, max), which shows a scheme that behaves differently from seed to seed."""
    columns = ["experiment", "aqm", "metric", "ours", "seeds", "seed_min", "seed_max"]
    seeds = seeds.dropna(subset=["value"])
    if seeds.empty:
        return pd.DataFrame(columns=columns)
    grouped = seeds.groupby(["experiment", "aqm", "metric"], sort=False)["value"]
    return pd.DataFrame(
        {
            "ours": grouped.mean(),
            "seeds": grouped.count(),
            "seed_min": grouped.min(),
            "seed_max": grouped.max(),
        }
    ).reset_index()[columns]


def comparison(published_df: pd.DataFrame, ours_df: pd.DataFrame) -> pd.DataFrame:
    """The tidy side-by-side table: every published (experiment, aqm, metric) and ours, with
    the difference ours − published (NaN where either is missing)."""
    merged = published_df.merge(ours_df, on=["experiment", "aqm", "metric"], how="outer")
    merged["difference"] = merged["ours"] - merged["published"]
    exp_order = {e: i for i, e in enumerate(SOURCES)}
    aqm_order = {a: i for i, a in enumerate(SCHEMES)}
    metric_order = {m: i for i, m in enumerate(METRICS)}
    merged = merged.assign(
        _e=merged["experiment"].map(exp_order),
        _a=merged["aqm"].map(aqm_order),
        _m=merged["metric"].map(metric_order),
    ).sort_values(["_e", "_a", "_m"], kind="stable")
    columns = [
        "experiment",
        "aqm",
        "metric",
        "published",
        "ours",
        "difference",
        "seeds",
        "seed_min",
        "seed_max",
    ]
    return merged[columns].reset_index(drop=True)


def paper_figures(runs: ReproductionRuns) -> list[Path]:
    """Figs. 5, 6 and 7 in the paper's layout: the instantaneous queue against time, one
    figure each, the lowest seed drawn bold and the others thin; the paper's y range
    [750, 2250] shaded (its axes stop there; ours show the whole queue)."""
    files: list[Path] = []
    out = runs.out_dir / "figures"
    for exp_id in FIGURES:
        specs = [s for s in _specs(runs, SOURCES[exp_id]) if runs.store.has(s.run_id, traces=True)]
        if not specs:
            continue
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        ax.axhspan(750, 2250, color="0.92", zorder=0, label="the paper's y range")
        for i, spec in enumerate(specs):
            ts = runs.store.read_traces(spec.run_id)
            ax.plot(
                ts["t_s"],
                ts["queue_pkts"],
                linewidth=0.9 if i == 0 else 0.4,
                alpha=1.0 if i == 0 else 0.45,
                color="tab:blue" if i == 0 else "tab:gray",
                label=f"seed {spec.seed}" if i == 0 else ("other seeds" if i == 1 else None),
            )
        ax.axhline(TARGET_PKTS, color="black", linestyle="--", linewidth=1, label="q_target")
        ax.set_title(SOURCES[exp_id].title, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("instantaneous queue (packets)")
        ax.set_xlim(0, 100)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
        fig.tight_layout()
        files += save_figure(fig, out, exp_id)
    return files


def model_part(runs: ReproductionRuns):
    """The model half of the paper (§3: the worked example, Figs. 3 and 4) into `model/`."""
    from ...model.reproduce import reproduce_self_tuning_red

    return reproduce_self_tuning_red(runs.out_dir / "model", points=200 if runs.quick else 1000)


def judge(runs: ReproductionRuns) -> tuple[list[Claim], str]:
    """Claims, verdicts and report.md; writes the side-by-side table
    (`tables/chen2011_comparison.*`, per seed in `tables/chen2011_seeds.*`), Figs. 5–7 and
    the model's report and figures under `model/`."""
    present = [e for e, s in SOURCES.items() if s.experiment in runs.specs_of]
    seeds = per_seed(runs)
    pub = published()
    table = comparison(pub[pub["experiment"].isin(present)], ours(seeds))
    write_table(table, runs.out_dir / "tables", "chen2011_comparison")
    write_table(seeds, runs.out_dir / "tables", "chen2011_seeds")
    paper_figures(runs)
    model = model_part(runs)
    claims = claims_chen2011.evaluate(table)
    return claims, chen2011_report.render(runs, present, table, seeds, claims, model)


PAPER = Paper(directory="chen2011", title=TITLE, parts=PARTS, judge=judge)
"""`aqmlab reproduce chen2011`."""
