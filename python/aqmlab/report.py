"""`report.md` of a paper reproduction: the verdict table, the criteria, each figure's numbers
and claims, and the known modelling differences."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from . import verdicts as V
from .claims_betared import Claim, seed_means
from .experiment import Experiment, format_value, window_phrase
from .plots import display, metric_label
from .tables import render_table

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


@dataclass
class FigureOutcome:
    """One figure of a reproduction: its experiment, table and status."""

    experiment: Experiment
    table: pd.DataFrame | None = None
    runs: int = 0
    stored: int = 0
    error: str | None = None
    files: list[str] = field(default_factory=list)


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], text_columns: int = 1) -> str:
    """A Markdown table; the first `text_columns` columns left-aligned, the rest right."""

    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |"]
    lines.append(
        "|" + "|".join("---" if i < text_columns else "---:" for i in range(len(headers))) + "|"
    )
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _fmt_metric(metric: str, value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    _, scale = metric_label(metric)
    return f"{float(value) * scale:.{DECIMALS.get(metric, 3)}f}"


def _fig_label(name: str) -> str:
    return name.replace("fig", "Fig. ") if name.startswith("fig") else name


def verdict_rows(claims: Sequence[Claim]) -> list[list[str]]:
    return [[c.id, _fig_label(c.figure), c.source, c.verdict] for c in claims]


def verdict_text(claims: Sequence[Claim]) -> str:
    """The verdict table for the terminal."""
    return render_table(["claim", "figure", "source", "verdict"], verdict_rows(claims), 4)


def _setup(experiment: Experiment, table: pd.DataFrame) -> list[str]:
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


def _figure_tables(fig: FigureOutcome) -> list[str]:
    experiment, df = fig.experiment, fig.table
    spec = experiment.plot
    means = seed_means(df, experiment.name)
    out: list[str] = []
    if spec.kind == "traces":
        metrics = ["avg_queue_pkts", "std_queue_pkts", "queue_rms_dev_pkts", *V.PAPER_METRICS[1:]]
        headers = [
            "AQM",
            "AQL (pkts)",
            "queue std (pkts)",
            "RMS distance from q_target (pkts)",
            "drop rate (%)",
            "throughput (Mb/s)",
            "delay (ms)",
            "jitter (ms)",
        ]
        rows = [
            [display(r[spec.lines])] + [_fmt_metric(m, r.get(m)) for m in metrics]
            for _, r in means.iterrows()
        ]
        return [_md_table(headers, rows)]
    col_keys = [k for k in (spec.panels, spec.lines) if k is not None]
    for metric in spec.y:
        label, _ = metric_label(metric)
        if col_keys:
            pivot = means.pivot_table(index=spec.x, columns=col_keys, values=metric, sort=False)
            pivot = pivot.sort_index()
            columns = list(pivot.columns)
            headers = [experiment.axis(spec.x).label] + [
                ", ".join(
                    _column_label(experiment, k, v)
                    for k, v in zip(col_keys, col if isinstance(col, tuple) else (col,))
                )
                for col in columns
            ]
            rows = [
                [format_value(x)] + [_fmt_metric(metric, pivot.loc[x, c]) for c in columns]
                for x in pivot.index
            ]
        else:
            sub = means.sort_values(spec.x)
            headers = [experiment.axis(spec.x).label, label]
            rows = [
                [format_value(x), _fmt_metric(metric, v)] for x, v in zip(sub[spec.x], sub[metric])
            ]
        if col_keys:
            names = " / ".join(experiment.axis(k).label for k in col_keys)
            out.append(f"*{label}* (columns: {names}):\n")
        else:
            out.append(f"*{label}*:\n")
        out.append(_md_table(headers, rows))
        out.append("")
    return out


def _column_label(experiment: Experiment, key: str, value: Any) -> str:
    """`N=800` for a parameter, the plain name for an AQM."""
    if key == "aqm":
        return display(value)
    return f"{experiment.axis(key).label}={display(value)}"


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
        parts.append(f"{label} {_fmt_metric(m, spread[m])}")
    return "seed-to-seed spread (median over grid points of max − min across seeds): " + (
        ", ".join(parts)
    )


def _claim_block(claim: Claim) -> list[str]:
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


MODELLING_DIFFERENCES = """\
The paper ran ns-3 (§3); aqmlab is a different packet-level simulator, so the comparison is
about the shape of each result (trends, rankings), not its decimals. What differs:

- **TCP** (`docs/tcp.md`, "What is not modelled"): no SACK, no PRR, no
  HyStart, no connection handshake; NewReno recovery with CUBIC's window growth and ns-3.37's
  other defaults (delayed ACK 2/200 ms, MinRto 1 s, initial window 10). Without SACK, recovery
  from many losses in one window is slower, which lowers goodput at high drop rates.
- **Throughput**: the paper divides each host's received bits by the time between its first and
  last segment; we divide the bits delivered in the measurement window by the window
  (`docs/metrics.md`).
- **Average queue length**: we report the exact time-weighted mean of the instantaneous queue
  over the window; the paper does not say whether its AQL averages the instantaneous queue or the
  AQM's EWMA (ours is `avg_queue_aqm_pkts` in the tables).
- **ARED, CoDel and PIE**: implemented from Floyd et al. 2001, RFC 8289 and RFC 8033 with the
  parameters in `docs/aqm/` and T_target = 40 ms for each; ns-3's
  implementations and defaults may differ in details the paper does not state.
- **Grids**: the figures' parameter values are not in the text (the figures are images); ours
  are written in each experiment file with the reason, and listed above. The paper gives no
  numbers for the figures, so every verdict concerns a qualitative statement.
- **Replications**: the paper does not say how many runs each point averages; the seeds we used
  are listed per figure."""


def render(
    paper_title: str,
    command: str,
    figures: Sequence[FigureOutcome],
    claims: Sequence[Claim],
    info: Mapping[str, str],
) -> str:
    """The whole report.md."""
    lines = [
        f"# Reproduction: {paper_title}",
        "",
        f"Generated by `{command}`.",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += [
        "",
        "The paper states its results as prose (§4.3, §5.3, §6) and figure captions, with no "
        "numeric values, so each claim below is tested qualitatively by the criterion written "
        "next to it, on our numbers.",
        "",
        "## Verdicts",
        "",
        _md_table(
            ["claim", "figure", "source", "claim (short)", "verdict"],
            [[c.id, _fig_label(c.figure), c.source, c.text, c.verdict] for c in claims],
        ),
        "",
        "## How a verdict is computed",
        "",
        "Each criterion compares pairs of numbers (means over the seeds). A comparison is a tie "
        f"when the two differ by no more than max(absolute tolerance, {V.REL_TOL:.0%} of the "
        "larger magnitude); otherwise it agrees or disagrees with the claim. With a agreeing and "
        "d disagreeing out of n comparisons: **Inconclusive** when n = 0 or a + d < n/2; "
        f"**Agrees** when a/(a+d) ≥ {V.AGREE_SHARE:.2f}; **Partly agrees** when "
        f"0.5 < a/(a+d) < {V.AGREE_SHARE:.2f}; **Disagrees** when a/(a+d) ≤ 0.5 (claim fig9 uses "
        "a ranking, stated with it). The average queue length is judged by its distance to "
        "q_target = 250 packets (the paper's stability, §3.2); lower is better for drop rate, "
        "delay and jitter, higher for throughput.",
        "",
        _md_table(
            ["compared quantity", "absolute tolerance"],
            [[k, f"{v:g}"] for k, v in V.ABS_TOL.items()],
        ),
        "",
    ]
    by_figure: dict[str, list[Claim]] = {}
    for c in claims:
        by_figure.setdefault(c.figure, []).append(c)
    for fig in figures:
        exp = fig.experiment
        lines += [f"## {exp.display_title(fig.table)}", ""]
        if fig.error:
            lines += [f"Not run: {fig.error}", ""]
        elif fig.table is None or fig.table.empty:
            lines += ["No stored runs.", ""]
        else:
            lines += [f"![{_fig_label(exp.name)}](figures/{exp.name}.png)", ""]
            lines += _setup(exp, fig.table)
            missing = fig.runs - fig.stored
            lines.append(
                f"- runs: {fig.stored} of {fig.runs} stored"
                + (f" ({missing} failed)" if missing else "")
            )
            spread = seed_spread(fig.table, [a.name for a in exp.axes])
            if spread:
                lines.append(f"- {spread}")
            lines.append("")
            lines += _figure_tables(fig)
            lines.append("")
        for c in by_figure.get(exp.name, []):
            lines += _claim_block(c)
    lines += ["## Known modelling differences", "", MODELLING_DIFFERENCES]
    lines += [
        "- **Against ns-3**: the same scenarios run side by side with ns-3.37 are compared "
        "in `docs/validation-ns3.md`."
    ]
    lines.append("")
    return "\n".join(lines)
