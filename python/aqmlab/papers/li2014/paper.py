"""The reproduction of Li et al. (2014): which experiment gives each of Tables 1–21, the
published numbers (`experiments/li2014/published.csv`), the paper's metrics computed from our
stored runs, the side-by-side table, the router-D queue figures and the report
(`report`), with the claims judged in `claims`; the parts are in `spec`, and `PAPER` is
what `aqmlab reproduce li2014` runs."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...data import EXPERIMENTS
from ...engine.parquet import write_table
from ...present.plots import plot_traces
from ..base import Paper, ReproductionRuns
from . import claims as claims_li2014
from . import report as li2014_report
from .spec import (
    DELAY_METRICS,
    PARTS,
    PAYLOAD_BYTES,
    QUEUE_METRICS,
    SCHEMES,
    TABLES,
    TITLE,
    TRANSIENT,
    WIRE_BYTES,
)

if TYPE_CHECKING:
    from ..claims import Claim


def experiments_root() -> Path:
    """The paper's shipped scenario and experiment files and published numbers."""
    return EXPERIMENTS / "li2014"


SECONDS_TABLES = (21,)
"""Tables whose delays the paper heads "(ms)" but prints in seconds: Table 21's 0.05–0.12
would be queues of 0.3–0.7 packets, while the same schemes hold 300–700 packets (55–130 ms at
45 Mb/s) in Table 2's runs, whose settings Table 21 keeps but for the propagation time."""


def published(path: Path | None = None) -> pd.DataFrame:
    """The paper's numbers: one row per (table, aqm, metric), percentages as fractions,
    delays in ms (`SECONDS_TABLES` converted from seconds)."""
    path = path or experiments_root() / "published.csv"
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = []
    for r in rows:
        text = r["printed"].strip()
        value = float(text.rstrip("%")) / 100 if text.endswith("%") else float(text)
        if int(r["table"]) in SECONDS_TABLES and r["metric"] in DELAY_METRICS:
            value *= 1000.0
        out.append(
            {"table": int(r["table"]), "aqm": r["aqm"], "metric": r["metric"], "published": value}
        )
    return pd.DataFrame(out)


def paper_metrics(summary: Mapping[str, Any], port: Mapping[str, Any]) -> dict[str, float]:
    """The paper's metrics (§3) of one run at one port: link efficiency = TCP data packets
    sent on the link per second over the capacity in packets of `PAYLOAD_BYTES` per second,
    each packet counted as the bits it takes on the link over those of a `WIRE_BYTES` data
    packet (so a UDP packet of 500 bytes counts as 500/1040 of one; with TCP alone this is
    the packet count); drop ratio = drops / arrivals at the link; mean and STD of the queue
    length; the end-to-end delay of every flow's data packets."""
    sent_pkts_per_s = float(port["throughput_mbps"]) * 1e6 / (8 * WIRE_BYTES)
    capacity_pkts_per_s = float(port["rate_mbps"]) * 1e6 / (8 * PAYLOAD_BYTES)
    return {
        "link_efficiency": sent_pkts_per_s / capacity_pkts_per_s,
        "drop_rate": float(port["drop_rate"]),
        "avg_queue_pkts": float(port["avg_queue_pkts"]),
        "std_queue_pkts": float(port["std_queue_pkts"]),
        "delay_mean_ms": float(summary["delay_mean_ms"]),
        "delay_std_ms": float(summary["delay_std_ms"]),
    }


def _port_row(ports: pd.DataFrame, name: str | None) -> Mapping[str, Any] | None:
    if ports.empty:
        return None
    if name is None:
        return ports.iloc[0].to_dict()
    match = ports[ports["name"] == name]
    return None if match.empty else match.iloc[0].to_dict()


def ours(runs: ReproductionRuns) -> pd.DataFrame:
    """Our value of every (table, aqm, metric) that has stored runs: the mean over the seeds,
    with the number of seeds and their standard deviation."""
    rows = []
    for number, source in TABLES.items():
        for spec in runs.specs_of.get(source.experiment, ()):
            if not runs.store.has(spec.run_id):
                continue
            record = runs.store.read(spec.run_id)
            port = _port_row(runs.store.read_ports(spec.run_id), source.port)
            if port is None:
                continue
            values = paper_metrics(record["summary"], port)
            if source.port is None:
                # A queue that never settles has an infinite transient (so that the mean over
                # the seeds is infinite too, not the mean of the seeds that settled).
                settle = float(record["summary"]["settle_time_s"])
                values[TRANSIENT] = math.inf if math.isnan(settle) else settle
            for metric in (*source.metrics, TRANSIENT):
                if metric in values:
                    rows.append(
                        {
                            "table": number,
                            "aqm": spec.params["aqm"],
                            "metric": metric,
                            "seed": spec.seed,
                            "value": values[metric],
                        }
                    )
    if not rows:
        return pd.DataFrame(columns=["table", "aqm", "metric", "ours", "seeds", "seed_std"])
    df = pd.DataFrame(rows)
    grouped = df.groupby(["table", "aqm", "metric"], sort=False)["value"]
    return pd.DataFrame(
        {
            "ours": grouped.mean(),
            "seeds": grouped.count(),
            "seed_std": grouped.std(ddof=1),
        }
    ).reset_index()


def comparison(published_df: pd.DataFrame, ours_df: pd.DataFrame) -> pd.DataFrame:
    """The tidy side-by-side table: every published (table, aqm, metric) with our value and
    the difference ours − published (NaN where we have no run); our transient times after."""
    merged = published_df.merge(ours_df, on=["table", "aqm", "metric"], how="outer")
    merged["difference"] = merged["ours"] - merged["published"]
    order = {a: i for i, a in enumerate(SCHEMES)}
    metric_order = {m: i for i, m in enumerate((*QUEUE_METRICS, *DELAY_METRICS, TRANSIENT))}
    merged = merged.assign(
        _a=merged["aqm"].map(order), _m=merged["metric"].map(metric_order)
    ).sort_values(["table", "_a", "_m"], kind="stable")
    columns = ["table", "aqm", "metric", "published", "ours", "difference", "seeds", "seed_std"]
    return merged[columns].reset_index(drop=True)


def router_d_figures(runs: ReproductionRuns) -> list[Path]:
    """The queue of router D (port D->E) in the two-bottleneck experiments, in the layout of
    the experiment's own figure (one panel per AQM), as `<experiment>_router_D.png/svg`."""
    files: list[Path] = []
    for fig in runs.figures:
        exp = fig.experiment
        if exp.name not in ("table15_16", "table17_18") or fig.table is None or fig.table.empty:
            continue
        traces: dict[object, pd.DataFrame] = {}
        rows = []
        for spec in sorted(runs.specs_of[exp.name], key=lambda s: s.seed):
            if not runs.store.has(spec.run_id):
                continue
            ports = runs.store.read_ports(spec.run_id)
            port = _port_row(ports, "D->E")
            if port is None:
                continue
            summary = runs.store.read(spec.run_id)["summary"]
            rows.append({**spec.params, "seed": spec.seed, **_window(summary), **port})
            aqm = spec.params["aqm"]
            series = runs.store.read_port_traces(spec.run_id)
            if aqm not in traces and not series.empty:
                traces[aqm] = series[series["port"] == port["port"]].reset_index(drop=True)
        if rows:
            files += plot_traces(
                exp, pd.DataFrame(rows), traces, runs.out_dir / "figures", f"{exp.name}_router_D"
            )
    return files


def _window(summary: Mapping[str, Any]) -> dict[str, float]:
    return {k: summary[k] for k in ("duration_s", "window_start_s", "window_end_s")}


def judge(runs: ReproductionRuns) -> tuple[list[Claim], str]:
    """Claims, verdicts and report.md of the reproduction; writes the side-by-side table
    (`tables/li2014_comparison.*`) and the router-D figures."""
    numbers = sorted(n for n, source in TABLES.items() if source.experiment in runs.specs_of)
    pub = published()
    pub = pub[pub["table"].isin(numbers)]
    table = comparison(pub, ours(runs))
    write_table(table, runs.out_dir / "tables", "li2014_comparison")
    router_d_figures(runs)
    claims = claims_li2014.evaluate(table)
    return claims, li2014_report.render(runs, numbers, table, claims)


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


PAPER = Paper(directory="li2014", title=TITLE, parts={"table": PARTS}, judge=judge)
"""`aqmlab reproduce li2014`."""
