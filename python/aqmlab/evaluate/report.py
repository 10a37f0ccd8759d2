"""report.md of `aqmlab evaluate`: per RFC 7928 section, the measures of every case and AQM
(means over the seeds), the ranking by the section's stated criteria, and the figures; an
overview of the ranks first."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .. import _core
from ..present.common import display
from ..sweeps.experiment import format_value
from ..sweeps.grid import SweepOutcome
from .metrics import LABELS
from .result import SectionResult

SHOWN = (
    "goodput_mbps",
    "queue_delay_mean_ms",
    "probe_rtt_p99_ms",
    "drop_rate",
    "mark_rate",
    "jain_fairness",
    "link_efficiency",
    "fct_mean_s",
    "category_goodput_ratio",
    "loss_rate_I",
    "loss_rate_II",
    "delay_change",
    "goodput_change",
)
"""The measures of the per-case tables, in order; one a section never measured is left out."""

PERCENT = {
    "drop_rate",
    "mark_rate",
    "link_efficiency",
    "loss_rate_I",
    "loss_rate_II",
    "delay_change",
    "goodput_change",
}


def cell(metric: str, value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if math.isinf(value):
        return "∞"
    if metric in PERCENT:
        return f"{100 * value:.2f}"
    if metric in ("jain_fairness", "category_goodput_ratio", "category_imbalance"):
        return f"{value:.3f}"
    return f"{value:.2f}" if abs(value) < 100 else f"{value:.0f}"


def rank_text(rank: float) -> str:
    """A rank as shown: its number, or "–" for an AQM with no rank."""
    return "–" if pd.isna(rank) else str(int(rank))


def heading(metric: str) -> str:
    name, unit = LABELS[metric]
    return f"{name} ({unit})" if unit else name


def markdown(headers: Sequence[str], rows: Sequence[Sequence[str]], text_columns: int) -> str:
    align = ["---"] * text_columns + ["---:"] * (len(headers) - text_columns)
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def case_table(result: SectionResult) -> str:
    """Means over the seeds of every shown measure, one row per grid point."""
    keys = result.keys
    df = result.measures
    metrics = [m for m in SHOWN if m in df and df[m].notna().any()]
    means = df.groupby(["aqm", *keys], sort=False)[metrics].mean().reset_index()
    headers = ["AQM", *keys, *(heading(m) for m in metrics)]
    rows = [
        [display(r["aqm"]), *(format_value(r[k]) for k in keys)] + [cell(m, r[m]) for m in metrics]
        for _, r in means.iterrows()
    ]
    return markdown(headers, rows, len(keys) + 1)


def ranking_table(result: SectionResult) -> str:
    criteria = result.section.criteria
    headers = ["rank", "AQM"]
    for c in criteria:
        headers.append(f"{heading(c.metric)}, {'less' if c.better == 'min' else 'more'} is better")
    headers.append("mean rank")
    rows = []
    for _, r in result.ranking.iterrows():
        row = [rank_text(r["rank"]), display(r["aqm"])]
        for c in criteria:
            rank = r[f"rank_{c.metric}"]
            shown = "–" if pd.isna(rank) else f"{int(rank)}"
            row.append(f"{cell(c.metric, r[c.metric])} ({shown})")
        row.append(cell("", r["mean_rank"]))
        rows.append(row)
    return markdown(headers, rows, 2)


def overview(results: Sequence[SectionResult], aqms: Sequence[str]) -> str:
    ranked = [r for r in results if not r.ranking.empty]
    headers = ["AQM", *(f"{r.section.rfc} {r.section.stem}" for r in ranked)]
    rows = []
    for aqm in aqms:
        row = [display(aqm)]
        for r in ranked:
            hit = r.ranking[r.ranking["aqm"] == aqm]
            row.append(rank_text(hit["rank"].iloc[0]) if len(hit) else "–")
        rows.append(row)
    return markdown(headers, rows, 1)


def report_text(
    results: Sequence[SectionResult],
    aqms: Sequence[str],
    quick: bool,
    command: str,
    sweep: SweepOutcome,
    wall_s: float,
) -> str:
    names = ", ".join(display(a) for a in aqms)
    out = [
        f"# RFC 7928 evaluation: {names}",
        "",
        f"- command: `{command}`",
        f"- aqmlab {_core.version()}; "
        + ("quick (each experiment file's [quick] settings)" if quick else "full grids"),
        f"- runs: {sweep.total} ({sweep.ran} simulated now, {sweep.skipped} reused, "
        f"{len(sweep.failed)} failed); {wall_s:.0f} s wall, {sweep.cpu_s:.0f} s CPU in "
        "simulations",
        "",
        "How the scenarios read RFC 7928, and how ours differ from the ns-3 AQM Evaluation "
        "Suite's: docs/evaluate.md. Each section ranks the AQMs by its stated criteria: each "
        "measure averaged over the section's cases and seeds, a rank per criterion (1 the "
        "best, in brackets), the overall rank by the mean of those ranks. A rank says which "
        "AQM did better here, in these scenarios, not by how much: read the tables.",
        "",
        "## Ranks per section",
        "",
        overview(results, aqms),
    ]
    for failed_run, message in sweep.failed:
        out += ["", f"**Run {failed_run} failed**: {message}"]
    for r in results:
        s = r.section
        out += ["", f"## {s.rfc} {s.title} (`{s.stem}`)", "", s.reading, ""]
        if r.measures.empty:
            out += ["No run of this section is stored."]
            continue
        out += [case_table(r), ""]
        out += [
            f"Not run: {display(aqm)} {name} ×{factor:g}: {message}"
            for aqm, name, factor, message in r.refused
        ]
        out += ["", "Ranking:", "", ranking_table(r), ""]
        pngs = [Path(f).name for f in r.figures if f.endswith(".png")]
        out += [f"![{p}](figures/{p})" for p in pngs]
    return "\n".join(out) + "\n"
