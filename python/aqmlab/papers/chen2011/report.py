"""`report.md` of the Chen, Hu & Ji (2011) reproduction: the verdicts, Figs. 5–7 and Table 1
with the published numbers, ours, the difference and the spread over the seeds, the model
half's claims, and where the set-up differs from the paper's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import verdicts as V
from ..claims import Claim
from ..report import claim_block, md_table, setup_lines
from .claims import NAMES, TARGET_TOL_PKTS
from .spec import DISPLAY, FIGURES, MEAN, P_MAX_END, SCHEMES, SETTLE, SOURCES, STD, TABLE1

if TYPE_CHECKING:
    from ...model.reproduce import Outcome as ModelOutcome
    from ..base import ReproductionRuns

COLLAPSED_P_MAX = 1e-4
"""A self-tuning RED run whose p_max ends below this has lost its linear region (see
DIFFERENCES): the report counts such runs."""


def _num(metric: str, v: Any, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    v = float(v)
    if metric == SETTLE:
        return "never" if math.isinf(v) else f"{v:+.1f}" if signed else f"{v:.1f}"
    if metric == P_MAX_END:
        return f"{v:.3g}"
    return f"{'+' if signed and v > 0 else ''}{v:.1f}"


def _cell(rows: pd.DataFrame, metric: str) -> tuple[str, str, str, str]:
    """(paper, ours, Δ, seed range) of one metric."""
    if metric not in rows.index:
        return "–", "–", "–", "–"
    r = rows.loc[metric]
    spread = (
        f"{_num(metric, r['seed_min'])}–{_num(metric, r['seed_max'])}"
        if r["seeds"] and r["seeds"] > 1
        else "–"
    )
    return (
        _num(metric, r["published"]),
        _num(metric, r["ours"]),
        _num(metric, r["difference"], True),
        spread,
    )


def side_by_side(table: pd.DataFrame, experiments: Sequence[str]) -> str:
    """Mean and STD (paper / ours / Δ / our range over the seeds) and our transient time,
    one row per (experiment, scheme)."""
    headers = ["experiment", "scheme", "mean: paper", "ours", "Δ", "seeds' range"]
    headers += ["STD: paper", "ours", "Δ", "seeds' range", "transient (s)"]
    rows = []
    for exp in experiments:
        for aqm in SCHEMES:
            sub = table[(table["experiment"] == exp) & (table["aqm"] == aqm)].set_index("metric")
            if sub.empty or sub["ours"].isna().all():
                continue
            settle = sub["ours"].get(SETTLE, math.nan)
            rows.append(
                [NAMES[exp], DISPLAY[aqm], *_cell(sub, MEAN), *_cell(sub, STD)]
                + [_num(SETTLE, settle)]
            )
    return md_table(headers, rows, text_columns=2)


def per_seed_table(seeds: pd.DataFrame, experiments: Sequence[str], aqm: str) -> str:
    """One scheme's mean, STD, transient and final p_max in every run."""
    sub = seeds[(seeds["aqm"] == aqm) & seeds["experiment"].isin(experiments)]
    if sub.empty:
        return ""
    wide = sub.pivot_table(
        index=["experiment", "seed"], columns="metric", values="value", sort=False
    ).reset_index()
    rows = [
        [NAMES[r["experiment"]], int(r["seed"])]
        + [_num(m, r.get(m, math.nan)) for m in (MEAN, STD, SETTLE, P_MAX_END)]
        for _, r in wide.iterrows()
    ]
    return md_table(
        ["experiment", "seed", "mean", "STD", "transient (s)", "p_max at 100 s"], rows, 2
    )


def collapsed_runs(seeds: pd.DataFrame) -> tuple[int, int]:
    """(self-tuning RED runs whose p_max ended below `COLLAPSED_P_MAX`, all its runs)."""
    p = seeds[(seeds["aqm"] == "self_tuning_red") & (seeds["metric"] == P_MAX_END)]["value"]
    return int((p < COLLAPSED_P_MAX).sum()), len(p)


def _verdicts(claims: Sequence[Claim]) -> str:
    return md_table(
        ["claim", "where", "source", "claim (short)", "verdict (ours)", "on the paper's numbers"],
        [[c.id, c.figure, c.source, c.text, c.verdict, c.reference] for c in claims],
        text_columns=6,
    )


DEFINITIONS = f"""\
- **Mean and STD**: of the instantaneous queue at router B's bottleneck port as recorded every
  0.1 s over the second half, [50, 100] s (§5: "the results are recorded every 0.1 s", "the
  average and the standard deviation of queue length for second half"); the population STD.
- **Transient** (ours; the paper reads it off its figures): `settle_time_s` over the whole
  run, the first time from which every 1-second mean of the queue stays within the target
  ± 10 % (1350–1650 packets), "never" when the last second is outside.
- **Holds the target**: a mean within {TARGET_TOL_PKTS:g} packets (1 %) of 1500.
- Our value is the mean over the seeds; the range shows the lowest and highest seed."""

DIFFERENCES = """\
- **TCP**: ns-2.35's Agent/TCP/Reno with ECN as the `ns2` preset models it (`docs/tcp.md`).
  On this dumbbell RED, gentle RED, Adaptive RED, self-tuning RED (driven by Algorithm 1 from
  Tcl), REM and PI agree with ns-2.35 within the validation's tolerances
  (`docs/validation-ns2.md`): ns-2.35's own REM swings between empty and q_max as ours does,
  and its PI fluctuates as ours does, so the paper's smaller STDs for both are not what
  ns-2.35 gives with the parameters it states. The paper's flows start at an unstated time;
  ours start uniformly within the first second.
- **ECN rule**: every RED-type queue (RED, ARED, self-tuning RED) marks an ECN-capable packet
  while its probability is below 0.1 and drops it above, ns-2.35's default (`use_mark_p_`,
  `mark_p_ 0.1`), which the paper's ns-2 code would inherit; REM and PI mark always (ns-2's
  REM marks as a packet leaves the queue, ours as it arrives).
- **Self-tuning RED**: Algorithm 1 as printed (`docs/aqm/self_tuning_red.md`). Eq. (3.6)
  multiplies p_max by (q̃ − q_min)/(q_target − q_min) every δt with no lower bound, so a
  period whose mean q̃ sits just above q_min cuts p_max by a large factor. After the
  slow-start overshoot of the first seconds (the queue overflows, every flow times out, the
  queue is empty for about a second) the first periods often have such a q̃; p_max then
  drops below the value the load needs, the queue is regulated by the gentle region alone
  (p jumps from near 0 to above 0.1 past q_max, where marks turn into drops), and it swings
  between empty and q_max every 2–3 s with a period mean below the target, so eq. (3.6)
  keeps lowering p_max. ns-2.35 driven by the same algorithm does the same. The paper gives
  no floor for p_max and no start-up rule.
- **Seeds**: the paper reports one run per experiment; we run the seeds listed and show
  their range, because some outcomes differ from seed to seed."""


def render(
    runs: ReproductionRuns,
    experiments: Sequence[str],
    table: pd.DataFrame,
    seeds: pd.DataFrame,
    claims: Sequence[Claim],
    model: ModelOutcome,
) -> str:
    """The whole report.md."""
    lines = [f"# Reproduction: {runs.paper.title}", "", f"Generated by `{runs.command}`.", ""]
    lines += [f"- {k}: {v}" for k, v in runs.info.items()]
    lines += [
        "- side-by-side table: `tables/chen2011_comparison.parquet` / `.csv` (experiment, "
        "aqm, metric, published, ours, difference = ours − published, seeds, seed_min, "
        "seed_max); every run: `tables/chen2011_seeds.*`",
        f"- the model half: `model/report.md` ({model.wall_s:.0f} s)",
        "",
        "## Verdicts",
        "",
        _verdicts(claims),
        "",
        "Each criterion counts comparisons; with a agreeing and d disagreeing of n: "
        f"**Agrees** when a/(a+d) ≥ {V.AGREE_SHARE:.2f}, **Partly agrees** above 0.5, "
        "**Disagrees** at 0.5 or below, **Inconclusive** when fewer than half are decided "
        f"(STDs within max({V.ABS_TOL[STD]:g} packets, {V.REL_TOL:.0%}) are a tie). The last "
        "column applies the same criterion to the paper's own numbers.",
        "",
    ]
    for c in claims:
        lines += claim_block(c)
    lines += ["## Metrics", "", DEFINITIONS, ""]
    by_stem = {f.experiment.name: f for f in runs.figures}
    sections = (
        ("Figs. 5–7: the self-tuning RED alone", FIGURES, lambda e: e),
        ("Table 1: REM, Adaptive RED, PI and IRED", TABLE1, lambda e: SOURCES[e].experiment),
    )
    for heading, ids, figure_of in sections:
        chosen = [e for e in ids if e in experiments]
        if not chosen:
            continue
        lines += [f"## {heading}", ""]
        lines += [f"![{SOURCES[e].title}](figures/{figure_of(e)}.png)" for e in chosen] + [""]
        lines += _setups(by_stem, {SOURCES[e].experiment for e in chosen})
        lines += ["", side_by_side(table, chosen), ""]
        lines += ["Every run of IRED:", "", per_seed_table(seeds, chosen, "self_tuning_red"), ""]
    low, total = collapsed_runs(seeds)
    if total:
        lines += [
            f"Self-tuning RED runs whose p_max ended below {COLLAPSED_P_MAX:g}: {low} of "
            f"{total} (the swing described below).",
            "",
        ]
    lines += [
        "## The model half (§3)",
        "",
        f"`model/report.md`: the worked example, Fig. 3 and Fig. 4 ({model.wall_s:.1f} s).",
        "",
        "```",
        model.summary,
        "```",
        "",
        "## Where the set-up differs from the paper's",
        "",
        DIFFERENCES,
        "",
    ]
    return "\n".join(lines)


def _setups(by_stem: dict, stems: set[str]) -> list[str]:
    lines: list[str] = []
    for stem in sorted(stems):
        fig = by_stem.get(stem)
        if fig is None:
            continue
        if fig.error:
            lines.append(f"- `{stem}`: not run: {fig.error}")
        elif fig.table is not None and not fig.table.empty:
            lines += setup_lines(fig.experiment, fig.table)
    return lines
