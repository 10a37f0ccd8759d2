"""Explicit criteria that turn a table of results into a verdict on a claim.

Every criterion counts comparisons. A comparison of two numbers is a tie when they differ by
no more than max(absolute tolerance of the metric, 1 % of the larger magnitude); otherwise it
agrees or disagrees with the claim. With `a` agreeing and `d` disagreeing comparisons out of
`n`, the verdict is:
- Inconclusive when n = 0 or fewer than half of the n comparisons are decided (a + d < n/2);
- Agrees when a / (a + d) >= 0.75;
- Partly agrees when 0.5 < a / (a + d) < 0.75;
- Disagrees when a / (a + d) <= 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

AGREES = "Agrees"
PARTLY = "Partly agrees"
DISAGREES = "Disagrees"
INCONCLUSIVE = "Inconclusive"
NOT_RUN = "Not run"

AGREE_SHARE = 0.75
"""The share of decided comparisons that must agree for "Agrees"."""

REL_TOL = 0.01
"""Relative part of the tie tolerance: 1 % of the larger magnitude."""

ABS_TOL = {
    "avg_queue_pkts": 2.5,  # 1 % of q_target = 250 packets
    "queue_dev_pkts": 2.5,
    "queue_rms_dev_pkts": 2.5,
    "std_queue_pkts": 2.5,
    "drop_rate": 1e-4,  # 0.01 percentage points
    "throughput_mbps": 0.1,  # 0.2 % of the 50 Mb/s bottleneck
    "delay_mean_ms": 0.25,
    "jitter_ms": 0.01,
}
"""Absolute part of the tie tolerance, per metric (in the metric's unit)."""

LOWER_IS_BETTER = {
    "queue_dev_pkts": True,
    "queue_rms_dev_pkts": True,
    "std_queue_pkts": True,
    "drop_rate": True,
    "throughput_mbps": False,
    "delay_mean_ms": True,
    "jitter_ms": True,
}
"""Which way is better for each compared metric. The average queue length is judged by its
distance to q_target (`queue_dev_pkts`), the paper's notion of stability (§3.2)."""

PAPER_METRICS = ("avg_queue_pkts", "drop_rate", "throughput_mbps", "delay_mean_ms", "jitter_ms")

COMPARED = {"avg_queue_pkts": "queue_dev_pkts"}
"""Metric shown -> metric compared, where they differ."""


def tolerance(metric: str, a: float, b: float) -> float:
    return max(ABS_TOL.get(metric, 0.0), REL_TOL * max(abs(a), abs(b)))


def sign(metric: str, a: float, b: float) -> int:
    """+1 when `a` is better than `b` beyond the tolerance, -1 when worse, 0 for a tie (or a
    missing value)."""
    if any(not math.isfinite(float(v)) for v in (a, b)):
        return 0
    if abs(a - b) <= tolerance(metric, a, b):
        return 0
    lower = LOWER_IS_BETTER.get(metric, True)
    return 1 if (a < b) == lower else -1


def verdict_from_counts(agree: int, disagree: int, ties: int) -> str:
    n = agree + disagree + ties
    decided = agree + disagree
    if n == 0 or decided < n / 2:
        return INCONCLUSIVE
    share = agree / decided
    if share >= AGREE_SHARE:
        return AGREES
    if share > 0.5:
        return PARTLY
    return DISAGREES


@dataclass
class Tally:
    """Counts of agreeing, disagreeing and tied comparisons, with the disagreeing ones
    described for the report."""

    agree: int = 0
    disagree: int = 0
    ties: int = 0
    against: list[str] = field(default_factory=list)

    def add(self, s: int, description: str = "") -> None:
        if s > 0:
            self.agree += 1
        elif s < 0:
            self.disagree += 1
            if description:
                self.against.append(description)
        else:
            self.ties += 1

    def merge(self, other: Tally) -> Tally:
        return Tally(
            self.agree + other.agree,
            self.disagree + other.disagree,
            self.ties + other.ties,
            self.against + other.against,
        )

    @property
    def n(self) -> int:
        return self.agree + self.disagree + self.ties

    @property
    def verdict(self) -> str:
        return verdict_from_counts(self.agree, self.disagree, self.ties)

    def summary(self, unit: str = "comparisons") -> str:
        decided = self.agree + self.disagree
        share = f"{100 * self.agree / decided:.0f} %" if decided else "n/a"
        return (
            f"{self.agree} of {self.n} {unit} agree, {self.disagree} disagree, "
            f"{self.ties} within tolerance (agreeing share of decided: {share})"
        )


def with_queue_deviation(df: pd.DataFrame, target: float) -> pd.DataFrame:
    """Add `queue_dev_pkts` = |avg_queue_pkts − target| and `queue_rms_dev_pkts` =
    sqrt(std_queue² + (avg_queue − target)²), the root-mean-square distance of the
    instantaneous queue from the target over the window."""
    df = df.copy()
    df["queue_dev_pkts"] = (df["avg_queue_pkts"] - target).abs()
    if "std_queue_pkts" in df:
        df["queue_rms_dev_pkts"] = (df["std_queue_pkts"] ** 2 + df["queue_dev_pkts"] ** 2) ** 0.5
    return df


NAMES = {
    "queue_dev_pkts": "|AQL − q_target|",
    "queue_rms_dev_pkts": "RMS distance from q_target",
    "std_queue_pkts": "queue std",
    "avg_queue_pkts": "AQL",
    "drop_rate": "drop rate",
    "throughput_mbps": "throughput",
    "delay_mean_ms": "delay",
    "jitter_ms": "jitter",
}
"""How compared quantities are named in the report."""


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:g}" if v == int(v) else f"{v:.4g}"
    return str(v)


def _val(metric: str, v: float) -> str:
    """A value in the report's unit: the drop rate in percent."""
    return f"{100 * v:.3g} %" if metric == "drop_rate" else _fmt(float(v))


def _where(keys: Sequence[str], values: Sequence[object]) -> str:
    return ", ".join(f"{k}={_fmt(v)}" for k, v in zip(keys, values))


def _groups(df: pd.DataFrame, keys: Sequence[str]):
    if not keys:
        yield (), df
        return
    for values, sub in df.groupby(list(keys), sort=False):
        yield (values if isinstance(values, tuple) else (values,)), sub


def trend(
    df: pd.DataFrame,
    along: str,
    metric: str,
    groups: Sequence[str],
    better_when: str,
    order: Sequence[object] | None = None,
) -> Tally:
    """Compare consecutive values of `along` (sorted, or in `order`) inside each group.

    `better_when` = "increasing": the claim is that `metric` gets better as `along` grows;
    "decreasing": that it gets better as `along` shrinks. `df` holds one row per (group,
    along) value (seed means)."""
    tally = Tally()
    for values, sub in _groups(df, groups):
        if order is not None:
            rank = {v: i for i, v in enumerate(order)}
            sub = sub[sub[along].isin(rank)].sort_values(along, key=lambda s: s.map(rank))
        else:
            sub = sub.sort_values(along)
        xs, ys = sub[along].tolist(), sub[metric].tolist()
        for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
            s = sign(metric, y1, y0)  # +1: the larger `along` value is better
            if better_when == "decreasing":
                s = -s
            tally.add(
                s,
                f"{_where(groups, values)}: {along} {_fmt(x0)} → {_fmt(x1)}: "
                f"{NAMES.get(metric, metric)} {_val(metric, y0)} → {_val(metric, y1)}",
            )
    return tally


def paired(
    df: pd.DataFrame,
    column: str,
    better: object,
    worse: object,
    metric: str,
    groups: Sequence[str],
) -> Tally:
    """The claim that rows with `column == better` beat rows with `column == worse` on
    `metric`, compared at each combination of `groups`."""
    tally = Tally()
    for values, sub in _groups(df, groups):
        a = sub.loc[sub[column] == better, metric]
        b = sub.loc[sub[column] == worse, metric]
        if a.empty or b.empty:
            continue
        a, b = float(a.iloc[0]), float(b.iloc[0])
        tally.add(
            sign(metric, a, b),
            f"{_where(groups, values)}: {NAMES.get(metric, metric)} {better} {_val(metric, a)} "
            f"vs {worse} {_val(metric, b)}",
        )
    return tally


def best(
    df: pd.DataFrame, column: str, candidate: object, metric: str, groups: Sequence[str]
) -> Tally:
    """The claim that `candidate` (a value of `column`) is the best on `metric` in each group:
    agrees when it beats every other beyond the tolerance, disagrees when another beats it,
    tie otherwise."""
    tally = Tally()
    for values, sub in _groups(df, groups):
        mine = sub.loc[sub[column] == candidate, metric]
        others = sub.loc[sub[column] != candidate, [column, metric]]
        if mine.empty or others.empty:
            continue
        mine = float(mine.iloc[0])
        signs = [sign(metric, mine, float(v)) for v in others[metric]]
        if all(s > 0 for s in signs):
            tally.add(1)
        elif any(s < 0 for s in signs):
            beaten_by = [
                f"{o} {_val(metric, float(v))}"
                for o, v, s in zip(others[column], others[metric], signs)
                if s < 0
            ]
            tally.add(
                -1,
                f"{_where(groups, values)}: {NAMES.get(metric, metric)} {candidate} "
                f"{_val(metric, mine)}, beaten by " + ", ".join(beaten_by),
            )
        else:
            tally.add(0)
    return tally


def irregular(df: pd.DataFrame, along: str, metric: str, groups: Sequence[str]) -> Tally:
    """The claim that `metric` varies unpredictably with `along`: a group's series agrees
    when its consecutive changes (beyond the tolerance) go both up and down; it disagrees
    when it is monotone (all decided changes one way) or flat (no change beyond the
    tolerance)."""
    tally = Tally()
    for values, sub in _groups(df, groups):
        sub = sub.sort_values(along)
        ys = sub[metric].tolist()
        signs = {sign(metric, y1, y0) for y0, y1 in zip(ys, ys[1:])} - {0}
        shape = "irregular" if len(signs) == 2 else ("monotone" if signs else "flat")
        tally.add(
            1 if shape == "irregular" else -1,
            f"{_where(groups, values)}: {shape} ({', '.join(_val(metric, y) for y in ys)})",
        )
    return tally
