"""Pieces every paper's `report.md` is made of: Markdown tables, the verdict table, what an
experiment ran, the spread across seeds, and the block of one claim with its criterion and
numbers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..engine.tables import render_table
from ..present.plots import display, metric_label
from ..sweeps.experiment import Experiment, format_value, window_phrase
from . import verdicts as V
from .claims import Claim

DECIMALS = {
    "avg_queue_pkts": 1,
    "std_queue_pkts": 1,
    "queue_rms_dev_pkts": 1,
    "drop_rate": 3,
    "throughput_mbps": 2,
    "delay_mean_ms": 1,
    "jitter_ms": 3,
}


MAX_AGAINST = 8
"""How many disagreeing comparisons each claim lists."""


def md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], text_columns: int = 1) -> str:
    """A Markdown table; the first `text_columns` columns left-aligned, the rest right."""

    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |"]
    lines.append(
        "|" + "|".join("---" if i < text_columns else "---:" for i in range(len(headers))) + "|"
    )
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def fmt_metric(metric: str, value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    _, scale = metric_label(metric)
    return f"{float(value) * scale:.{DECIMALS.get(metric, 3)}f}"


def fig_label(name: str) -> str:
    return name.replace("fig", "Fig. ") if name.startswith("fig") else name


def verdict_rows(claims: Sequence[Claim]) -> list[list[str]]:
    return [[c.id, fig_label(c.figure), c.source, c.verdict] for c in claims]


def verdict_text(claims: Sequence[Claim]) -> str:
    """The verdict table for the terminal."""
    return render_table(["claim", "figure", "source", "verdict"], verdict_rows(claims), 4)


def setup_lines(experiment: Experiment, table: pd.DataFrame) -> list[str]:
    """What was run: scenario, duration and window (as the stored runs report them), fixed
    settings, grid, seeds."""
    lines = [
        f"- experiment file `{experiment.path.name}`, base scenario "
        f"`{experiment.scenario_path.name}`; metrics over the {window_phrase(table)}",
    ]
    settings = [
        f"`{k}` = {format_value(v)}"
        for k, v in experiment.fixed
        if k not in ("duration_s", "measure.window")
    ]
    if settings:
        lines.append("- fixed: " + ", ".join(settings))
    for axis in experiment.axes:
        lines.append(
            f"- {axis.label} (`{'`, `'.join(axis.keys)}`): "
            + ", ".join(display(v) for v in axis.values)
        )
    n = len(experiment.seeds)
    lines.append(
        f"- seeds: {', '.join(str(s) for s in experiment.seeds)} ({n} replication"
        f"{'s' if n != 1 else ''} per point; tables, plots and verdicts use the mean)"
    )
    return lines


def seed_spread(df: pd.DataFrame, keys: Sequence[str]) -> str | None:
    """The median over grid points of (max − min across seeds) of each paper metric, as a
    guide to how large a difference the noise alone makes; None with one seed."""
    if "seed" not in df or df["seed"].nunique() < 2:
        return None
    keys = [k for k in keys if k in df]
    metrics = [m for m in V.PAPER_METRICS if m in df]
    spread = df.groupby(keys, sort=False)[metrics].agg(lambda x: x.max() - x.min()).median()
    parts = []
    for m in metrics:
        label, _ = metric_label(m)
        parts.append(f"{label} {fmt_metric(m, spread[m])}")
    return "seed-to-seed spread (median over grid points of max − min across seeds): " + (
        ", ".join(parts)
    )


def claim_block(claim: Claim) -> list[str]:
    lines = [
        f"**Claim {claim.id}** ({claim.source}): {claim.text}",
        "",
        f"- criterion: {claim.criterion}",
        f"- verdict: **{claim.verdict}**",
        f"- numbers: {claim.evidence}" if claim.evidence else "- numbers: none",
    ]
    if claim.reference:
        lines.append(f"- the same criterion on the paper's numbers: {claim.reference}")
    if claim.against:
        shown = claim.against[:MAX_AGAINST]
        more = len(claim.against) - len(shown)
        lines.append(
            "- against the claim: " + "; ".join(shown) + (f"; … {more} more" if more > 0 else "")
        )
    lines.append("")
    return lines
