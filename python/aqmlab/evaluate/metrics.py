"""The per-run measures the RFC 7928 report card uses (docs/evaluate.md): the summary's
(`throughput_mbps` as `goodput_mbps`: the payload delivered in order, probes left out), and
those it derives from a run's kept tables and time series.

- `queue_delay_mean_ms`, `queue_delay_std_ms`: the bottleneck's queueing delay, sampled every
  `measure.sample_interval_ms` as the time the bytes waiting take to leave at the link's rates
  from then on (the wait of a packet joining the queue then; the bytes over the rate when it
  is fixed), mean and standard deviation over the measurement window: a time
  average, where RFC 7928 §2.7 asks for the per-packet delay above the minimum RTT and the ns-3
  AQM Evaluation Suite records each packet's sojourn in the queue (docs/evaluate.md).
- `fct_mean_s`: mean completion time of the finished transfers of finite flows (the fct
  table's per-size means weighted by the transfers completed); NaN without any.
- `category_goodput_ratio`: the goodput of the group named `other` over that of the group
  named `reference`, RFC 7928 §6.3's ratio of category II's goodput over category I's (§6.2's
  RTTs, §4.4's packet sizes); `category_imbalance` = |log₂ of it| (0 when equal, 1 for a factor
  of two either way); `loss_rate_I` and `loss_rate_II`, each category's share of its packets
  lost (the groups table's `loss_rate`), §6.3's drop rate per category. NaN in a scenario
  without those groups.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pandas as pd

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9 and 3.10
    import tomli as tomllib

SUMMARY_METRICS = (
    "goodput_mbps",
    "probe_rtt_p99_ms",
    "drop_rate",
    "mark_rate",
    "jain_fairness",
    "link_efficiency",
)
"""Summary metrics the report card shows (goodput_mbps is the summary's throughput_mbps)."""

METRICS = (
    *SUMMARY_METRICS,
    "queue_delay_mean_ms",
    "queue_delay_std_ms",
    "fct_mean_s",
    "category_goodput_ratio",
    "category_imbalance",
    "loss_rate_I",
    "loss_rate_II",
)
"""Every per-run measure of the report card, ranking criteria included."""

LABELS = {
    "goodput_mbps": ("goodput", "Mb/s"),
    "probe_rtt_p99_ms": ("probe RTT p99", "ms"),
    "drop_rate": ("drop rate", "%"),
    "mark_rate": ("mark rate", "%"),
    "jain_fairness": ("Jain fairness", ""),
    "link_efficiency": ("link utilisation", "%"),
    "queue_delay_mean_ms": ("queueing delay", "ms"),
    "queue_delay_std_ms": ("queueing delay std", "ms"),
    "fct_mean_s": ("transfer time", "s"),
    "category_goodput_ratio": ("goodput ratio II/I", ""),
    "category_imbalance": ("imbalance, abs. log2 of II/I", ""),
    "loss_rate_I": ("loss rate I", "%"),
    "loss_rate_II": ("loss rate II", "%"),
    "delay_change": ("queueing delay change", "%"),
    "goodput_change": ("goodput change", "%"),
}


def bottleneck_rate_steps(scenario: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The rate of the port the summary describes (the dumbbell's bottleneck, a chain's first
    link: the report card's scenarios name no other `measure.port`) as steps: the times each
    rate starts, s (0, then each change of its schedule), and the rates, Mb/s."""
    topology = scenario["topology"]
    if topology.get("kind", "dumbbell") == "dumbbell":
        rate, schedule = topology["bottleneck_rate_mbps"], topology.get("bottleneck_rate_schedule")
    else:
        link = topology["links"][0]
        rate, schedule = link["rate_mbps"], link.get("rate_schedule")
    starts = np.array([0.0] + [float(t) for t, _ in schedule or []])
    rates = np.array([float(rate)] + [float(r) for _, r in schedule or []])
    return starts, rates


def queue_delay_ms(traces: pd.DataFrame, scenario: dict[str, Any]) -> pd.Series:
    """The sampled queueing delay, ms: how long the bytes waiting at each sample take to leave
    at the link's rates from then on, the wait of a packet joining the tail of the queue then
    (its virtual waiting time). At a fixed rate C that is bytes × 8 / C. Under a rate schedule
    the bits the link can send by time t, W(t), are piecewise linear, and the wait at t is
    W⁻¹(W(t) + 8·bytes) − t: a queue that builds at 10 Mb/s and drains at 100 Mb/s within the
    next phase is counted at the time it takes, not at the slower rate."""
    starts, rates_mbps = bottleneck_rate_steps(scenario)
    bps = rates_mbps * 1e6
    # W at each step's start, bits.
    w_starts = np.concatenate(([0.0], np.cumsum(bps[:-1] * np.diff(starts))))
    t = traces["t_s"].to_numpy(dtype=float)
    k = np.searchsorted(starts, t, side="right") - 1
    target = w_starts[k] + bps[k] * (t - starts[k]) + traces["queue_bytes"].to_numpy() * 8.0
    m = np.searchsorted(w_starts, target, side="right") - 1
    done_s = starts[m] + (target - w_starts[m]) / bps[m]
    return pd.Series((done_s - t) * 1e3, index=traces.index)


def in_window(traces: pd.DataFrame, summary: dict[str, Any]) -> pd.DataFrame:
    start, end = summary["window_start_s"], summary["window_end_s"]
    return traces[(traces["t_s"] > start) & (traces["t_s"] <= end)]


def fct_mean_s(fct: pd.DataFrame | None) -> float:
    """Mean completion time over the completed transfers of every size bin."""
    if fct is None or fct.empty:
        return math.nan
    done = fct[fct["completed"] > 0]
    total = done["completed"].sum()
    return float((done["fct_mean_s"] * done["completed"]).sum() / total) if total else math.nan


def category_ratio(groups: pd.DataFrame | None) -> float:
    """Goodput of the group `other` over the group `reference` (NaN without both, or when the
    reference delivered nothing)."""
    if groups is None or groups.empty:
        return math.nan
    by_name = groups.set_index("name")["throughput_mbps"]
    if "other" not in by_name or "reference" not in by_name or by_name["reference"] <= 0:
        return math.nan
    return float(by_name["other"] / by_name["reference"])


def category_loss_rate(groups: pd.DataFrame | None, name: str) -> float:
    """The `loss_rate` of the group called `name` (NaN without it)."""
    if groups is None or groups.empty or name not in set(groups["name"]):
        return math.nan
    return float(groups.set_index("name").loc[name, "loss_rate"])


def run_measures(
    record: dict[str, Any],
    traces: pd.DataFrame | None,
    groups: pd.DataFrame | None,
    fct: pd.DataFrame | None,
) -> dict[str, float]:
    """Every measure of `METRICS` for one stored run."""
    summary = record["summary"]
    scenario = tomllib.loads(record["scenario"])
    out = {
        "goodput_mbps": summary["throughput_mbps"],
        **{m: summary[m] for m in SUMMARY_METRICS if m != "goodput_mbps"},
    }
    if traces is not None and not traces.empty:
        delay = queue_delay_ms(in_window(traces, summary), scenario)
        out["queue_delay_mean_ms"] = float(delay.mean())
        out["queue_delay_std_ms"] = float(delay.std(ddof=0))
    else:
        out["queue_delay_mean_ms"] = out["queue_delay_std_ms"] = math.nan
    out["fct_mean_s"] = fct_mean_s(fct)
    ratio = category_ratio(groups)
    out["category_goodput_ratio"] = ratio
    # A starved flow (ratio 0) is unfairness without bound; NaN stays NaN.
    unfairness = math.inf if ratio == 0 else ratio
    out["category_imbalance"] = abs(math.log2(ratio)) if ratio > 0 else unfairness
    out["loss_rate_I"] = category_loss_rate(groups, "reference")
    out["loss_rate_II"] = category_loss_rate(groups, "other")
    return out
