"""Plain-text tables of summary metrics for the terminal."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any


class Metric:
    """A summary column shown as `label`, multiplied by `scale`, with `decimals` digits."""

    __slots__ = ("key", "label", "scale", "decimals")

    def __init__(self, key: str, label: str, scale: float, decimals: int) -> None:
        self.key, self.label, self.scale, self.decimals = key, label, scale, decimals


PAPER_METRICS = (
    Metric("avg_queue_pkts", "avg queue (pkts)", 1.0, 1),
    Metric("drop_rate", "drop rate (%)", 100.0, 3),
    Metric("throughput_mbps", "throughput (Mb/s)", 1.0, 3),
    Metric("delay_mean_ms", "delay (ms)", 1.0, 2),
    Metric("jitter_ms", "jitter (ms)", 1.0, 3),
)
"""The five metrics of the BetaRED paper (Appl. Sci. 2022, §3.2)."""

RUN_METRICS = PAPER_METRICS + (
    Metric("link_efficiency", "link efficiency (%)", 100.0, 2),
    Metric("jain_fairness", "Jain fairness", 1.0, 4),
)
"""What `aqmlab run` prints after a run."""

PROBE_METRICS = (
    Metric("probe_rtt_mean_ms", "probe RTT mean (ms)", 1.0, 2),
    Metric("probe_rtt_p50_ms", "probe RTT p50 (ms)", 1.0, 2),
    Metric("probe_rtt_p90_ms", "probe RTT p90 (ms)", 1.0, 2),
    Metric("probe_rtt_p99_ms", "probe RTT p99 (ms)", 1.0, 2),
)
"""What `aqmlab run` adds for a run with latency probes (docs/metrics.md, "Latency probes")."""


def format_number(value: Any, scale: float = 1.0, decimals: int = 1) -> str:
    """`value * scale` with `decimals` digits; None and NaN show as `n/a`."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{float(value) * scale:.{decimals}f}"


def format_metric(summary: Mapping[str, Any], metric: Metric) -> str:
    """One metric of a summary as text; a missing key shows as `n/a`."""
    return format_number(summary.get(metric.key), metric.scale, metric.decimals)


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], text_columns: int = 1
) -> str:
    """Columns padded to their widest cell; the first `text_columns` left-aligned, the
    (numeric) rest right-aligned."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [
            str(c).ljust(w) if i < text_columns else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def summary_table(summary: Mapping[str, Any]) -> str:
    """The main metrics of one run, one per line, with the port they describe (`port`: the
    name the per-port table gives it), and the latency probes' when it sent any."""
    window = (
        f"{format_number(summary.get('window_start_s'))}"
        f"-{format_number(summary.get('window_end_s'))}"
    )
    rows = [
        ("AQM", str(summary.get("aqm", "n/a"))),
        ("port", str(summary.get("port", "n/a"))),
        ("window (s)", window),
        ("flows", str(summary.get("flows_total", "n/a"))),
        ("seed", str(summary.get("seed", "n/a"))),
    ]
    rows += [(m.label, format_metric(summary, m)) for m in RUN_METRICS]
    if summary.get("probes_sent"):
        rows.append(("probes sent / lost", f"{summary['probes_sent']} / {summary['probes_lost']}"))
        rows += [(m.label, format_metric(summary, m)) for m in PROBE_METRICS]
    return render_table(("metric", "value"), rows)


def _records_table(
    records: Sequence[Mapping[str, Any]],
    columns: Sequence[tuple[str, str, float, int]],
    text_columns: int,
) -> str:
    """Rows (dicts, as `RunResult.records` gives them) as text: each (column, header, scale,
    decimals), text columns first (decimals < 0 marks a column shown as is)."""
    headers = [h for _, h, _, _ in columns]
    rows = [
        [str(r[c]) if d < 0 else format_number(r[c], scale, d) for c, _, scale, d in columns]
        for r in records
    ]
    return render_table(headers, rows, text_columns)


def ports_table(ports: Sequence[Mapping[str, Any]]) -> str:
    """One line per measured port: queue, drops, marks, efficiency, throughput."""
    return _records_table(
        ports,
        [
            ("name", "port", 1, -1),
            ("aqm", "AQM", 1, -1),
            ("avg_queue_pkts", "avg queue (pkts)", 1.0, 1),
            ("std_queue_pkts", "queue STD (pkts)", 1.0, 1),
            ("drop_rate", "drop rate (%)", 100.0, 3),
            ("mark_rate", "mark rate (%)", 100.0, 3),
            ("link_efficiency", "link efficiency (%)", 100.0, 2),
            ("throughput_mbps", "throughput (Mb/s)", 1.0, 3),
        ],
        text_columns=2,
    )


def groups_table(groups: Sequence[Mapping[str, Any]]) -> str:
    """One line per flow group: throughput, delay, jitter, fairness, loss."""
    return _records_table(
        groups,
        [
            ("name", "group", 1, -1),
            ("transport", "transport", 1, -1),
            ("flows", "flows", 1, -1),
            ("throughput_mbps", "throughput (Mb/s)", 1.0, 3),
            ("delay_mean_ms", "delay (ms)", 1.0, 2),
            ("delay_std_ms", "delay STD (ms)", 1.0, 2),
            ("jitter_ms", "jitter (ms)", 1.0, 3),
            ("jain_fairness", "Jain", 1.0, 4),
            ("loss_rate", "loss (%)", 100.0, 3),
        ],
        text_columns=2,
    )


def fct_table(fct: Sequence[Mapping[str, Any]]) -> str:
    """One line per group and size bin of finite flows: completion-time statistics."""
    return _records_table(
        fct,
        [
            ("name", "group", 1, -1),
            ("size_min_bytes", "size from (B)", 1, -1),
            ("size_max_bytes", "size below (B)", 1.0, 0),
            ("flows", "flows", 1, -1),
            ("completed", "completed", 1, -1),
            ("fct_mean_s", "FCT mean (s)", 1.0, 3),
            ("fct_median_s", "median (s)", 1.0, 3),
            ("fct_p95_s", "p95 (s)", 1.0, 3),
            ("fct_p99_s", "p99 (s)", 1.0, 3),
        ],
        text_columns=1,
    )
