"""`report.md` of the Li et al. (2014) reproduction: the verdicts, then each of Tables 1–21
with the published value, ours and the difference for every scheme and metric, its queue
figure, and the differences between the paper's set-up and ours."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import verdicts as V
from ..claims import Claim
from ..report import claim_block, md_table, setup_lines
from .spec import DELAY_METRICS, DISPLAY, SCHEMES, TABLE_TITLES, TABLES, TRANSIENT

if TYPE_CHECKING:
    from ..base import ReproductionRuns

HEADS = {
    "link_efficiency": "link efficiency",
    "drop_rate": "drop ratio",
    "avg_queue_pkts": "avg queue (pkts)",
    "std_queue_pkts": "queue STD (pkts)",
    "delay_mean_ms": "mean delay (ms)",
    "delay_std_ms": "delay STD (ms)",
}


def _num(metric: str, v: Any, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    v = float(v)
    sign = "+" if signed and v > 0 else ""
    if metric in ("link_efficiency", "drop_rate"):
        return f"{sign}{100 * v:.2f}%"
    if metric in DELAY_METRICS:
        return f"{sign}{v:.2f}" if abs(v) >= 1 else f"{sign}{v:.4f}"
    return f"{sign}{v:.1f}"


def side_by_side(table: pd.DataFrame, n: int) -> str:
    """Table `n` as Markdown: for each metric the paper's value, ours and the difference
    (ours − paper), then our transient time for the tables of the first router."""
    metrics = TABLES[n].metrics
    rows_of = table[table["table"] == n]
    headers = ["scheme"]
    for m in metrics:
        headers += [f"{HEADS[m]}: paper", "ours", "Δ"]
    with_transient = metrics[0] != DELAY_METRICS[0] and TABLES[n].port is None
    if with_transient:
        headers.append("transient (s)")
    rows = []
    for aqm in SCHEMES:
        sub = rows_of[rows_of["aqm"] == aqm].set_index("metric")
        if sub.empty:
            continue
        row: list[Any] = [DISPLAY[aqm]]
        for m in metrics:
            if m in sub.index:
                r = sub.loc[m]
                row += [_num(m, r["published"]), _num(m, r["ours"]), _num(m, r["difference"], True)]
            else:
                row += ["–", "–", "–"]
        if with_transient:
            t = float(sub["ours"][TRANSIENT]) if TRANSIENT in sub.index else math.nan
            row.append("never" if math.isinf(t) else _num(TRANSIENT, t))
        rows.append(row)
    return md_table(headers, rows)


def _figure_lines(n: int) -> list[str]:
    source = TABLES[n]
    stem = source.experiment + ("_router_D" if source.port else "")
    return [f"![queue length, Table {n}](figures/{stem}.png)", ""]


def _verdicts(claims: Sequence[Claim]) -> str:
    return md_table(
        ["claim", "tables", "source", "claim (short)", "verdict (ours)", "on the paper's numbers"],
        [[c.id, c.figure, c.source, c.text, c.verdict, c.reference] for c in claims],
        text_columns=6,
    )


DEFINITIONS = """\
The paper's metrics (§3), as computed here from each run's bottleneck port
(`docs/metrics.md`):

- **Link efficiency**: "the ratio of the average number of data packets passing through the
  bottleneck link per second to the capacity of the bottleneck link in terms of packets per
  second". Its capacity in packets counts packets of the paper's 1000 bytes, while a TCP data
  packet is 1040 bytes on the wire in ns-2 (payload + 40 bytes of TCP/IP header), so a link
  that never idles scores 1000/1040 = 96.15 %, not 100 %: that is why the paper's column
  sits at 95.0–95.3 % whatever the AQM. We count the bits sent on the link over the window in
  units of a 1040-byte data packet, which is the packet count when TCP alone uses the link
  and weighs Table 14's 500-byte UDP packets by their size.
- **Packet drop ratio**: drops at the port / packets arriving at it (`drop_rate`).
- **Average queue length and STD**: time-weighted mean and standard deviation of the
  instantaneous queue (`avg_queue_pkts`, `std_queue_pkts`).
- **Mean packet delay and STD** (Tables 19–21): one-way delay of the data packets reaching
  their receivers, from the moment the sender put them on the wire (`delay_mean_ms`).
- **Transient** (ours; the paper reads it off its figures): `settle_time_s`, the first time
  from which every 1-second mean of the sampled queue stays within the target ± 20 %.
- **Window**: the paper does not state one. Its link efficiencies (96.15 % at most, 95.3 %
  printed) and its PI rows (a transient of about 40 s, the largest STD) fit statistics over
  the whole run, start-up included, so every table here is measured over the whole run."""

DIFFERENCES = """\
- **TCP**: ns-2.35's Agent/TCP/Reno as aqmlab's `ns2` preset models it (`docs/tcp.md`,
  `docs/validation-ns2.md` for how close it comes on this topology). The paper's flows all
  start at time 0; ours start uniformly within the first second (`traffic.start_jitter_s`),
  which spreads the first slow starts without changing the steady state.
- **Seeds**: the paper reports one run per table; we average the seeds listed per table.
- **Algorithms**: ARED, REM and PI follow ns-2.35; IAPI, Neuron PID, AN-AQM, FAPIDNN and NRL
  follow their original papers, and where those are silent the choices are reconstructions,
  each marked in its page in `docs/aqm/`.
- **Tables 19–21**: the paper heads all three "Mean packet delay (ms)". Table 21's values
  (0.05–0.12) cannot be ms: the same schemes hold 300 to 700 packets, which wait 55–130 ms
  at 45 Mb/s, so Table 21 is read as seconds and converted to ms here
  (`li2014.SECONDS_TABLES`). Table 19's values (55–66 ms with an 80 ms round trip, 40 ms one
  way, and queues of 300–730 packets, 55–135 ms of waiting) fit no one-way delay we can
  define; they are shown as printed."""


def render(
    runs: ReproductionRuns, numbers: Sequence[int], table: pd.DataFrame, claims: Sequence[Claim]
) -> str:
    """The whole report.md."""
    lines = [f"# Reproduction: {runs.paper.title}", "", f"Generated by `{runs.command}`.", ""]
    lines += [f"- {k}: {v}" for k, v in runs.info.items()]
    lines += [
        "- side-by-side table: `tables/li2014_comparison.parquet` / `.csv` (table, aqm, "
        "metric, published, ours, difference = ours − published, seeds, seed_std)",
        "",
        "## Verdicts",
        "",
        _verdicts(claims),
        "",
        "Each criterion counts comparisons of two numbers; a tie when they differ by no more "
        f"than max(absolute tolerance, {V.REL_TOL:.0%} of the larger) (queue lengths "
        f"{V.ABS_TOL['avg_queue_pkts']:g} packets, drop ratios "
        f"{100 * V.ABS_TOL['drop_rate']:g} percentage points). With a agreeing and d "
        "disagreeing of n: **Agrees** when a/(a+d) ≥ "
        f"{V.AGREE_SHARE:.2f}, **Partly agrees** above 0.5, **Disagrees** at 0.5 or below, "
        "**Inconclusive** when fewer than half are decided. The last column applies the same "
        "criterion to the paper's own tables.",
        "",
        "## Metrics",
        "",
        DEFINITIONS,
        "",
    ]
    by_table = {f.experiment.name: f for f in runs.figures}
    claims_of: dict[int, list[Claim]] = {}
    for c in claims:
        first = int(c.figure.replace("Tables ", "").replace("Table ", "").split(",")[0])
        claims_of.setdefault(first, []).append(c)
    for n in numbers:
        source = TABLES[n]
        fig = by_table.get(source.experiment)
        lines += [f"## Table {n}: {TABLE_TITLES[n]}", ""]
        if fig is None or fig.error:
            lines += [f"Not run: {fig.error if fig else 'experiment not selected'}", ""]
            continue
        if fig.table is None or fig.table.empty:
            lines += ["No stored runs.", ""]
            continue
        lines += _figure_lines(n)
        lines += setup_lines(fig.experiment, fig.table)
        if source.port:
            lines.append(f"- port `{source.port}` (router D)")
        lines += ["", side_by_side(table, n), ""]
        for c in claims_of.get(n, []):
            lines += claim_block(c)
    lines += ["## Where the set-up differs from the paper's", "", DIFFERENCES, ""]
    return "\n".join(lines)
