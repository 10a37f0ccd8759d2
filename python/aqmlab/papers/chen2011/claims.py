"""The claims of Chen, Hu & Ji (2011), §5, each judged by an explicit criterion on our numbers
and, where the paper prints them, on the paper's own (`verdicts.Tally` turns the counted
comparisons into a verdict).

"Holds the target" means a mean queue within `TARGET_TOL_PKTS` of 1500 packets over the second
half; transient times are judged against a bound with `TRANSIENT_TOL_S` of slack."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd

from .. import verdicts as V
from ..claims import Claim, judged
from .spec import DISPLAY, MEAN, SCHEMES, SETTLE, STD, TABLE1, TARGET_PKTS

Values = Mapping[tuple[str, str, str], float]
"""(experiment, aqm, metric) -> value."""

TARGET_TOL_PKTS = 15.0
"""1 % of the 1500-packet target: the paper's "stable at the target" rows sit within 13
packets of it (REM's 1512.9 the farthest), its "below the target" ones 20 or more below."""
TRANSIENT_TOL_S = 2.0
"""A transient time within 2 s of a claimed bound is a tie (1-second bins, and a time read off
a figure)."""
ARED_UDP_PKTS = (1393.9, 50.0)
"""§5.3: with UDP, ARED's queue settles "at about 1393"; within 50 packets agrees."""

NAMES = {
    "fig5": "Fig. 5",
    "fig6": "Fig. 6",
    "fig7": "Fig. 7",
    "exp1": "Exp. 1",
    "exp2": "Exp. 2",
    "exp3a": "Exp. 3 (new flows)",
    "exp3b": "Exp. 3 (flows leaving)",
}


def _values(table: pd.DataFrame, column: str) -> dict[tuple[str, str, str], float]:
    out = {}
    for row in table.itertuples(index=False):
        v = getattr(row, column)
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            out[(row.experiment, row.aqm, row.metric)] = float(v)
    return out


def _holds(values: Values, exp: str, aqm: str) -> bool | None:
    mean = values.get((exp, aqm, MEAN))
    return None if mean is None else abs(mean - TARGET_PKTS) <= TARGET_TOL_PKTS


def holds_target(values: Values, experiments: Iterable[str], aqm: str) -> V.Tally:
    """The scheme's mean within `TARGET_TOL_PKTS` of the target (agrees) or not, per
    experiment."""
    tally = V.Tally()
    for exp in experiments:
        held = _holds(values, exp, aqm)
        if held is not None:
            mean = values[(exp, aqm, MEAN)]
            tally.add(1 if held else -1, f"{NAMES[exp]}: {DISPLAY[aqm]} mean {mean:.1f}")
    return tally


def best_at_target(values: Values, experiments: Iterable[str], aqm: str) -> V.Tally:
    """`aqm` against each other scheme, per experiment: agrees when `aqm` holds the target and
    the other either misses it or has a larger STD (beyond the tolerance); disagrees when
    `aqm` misses the target, or the other holds it with a smaller STD."""
    tally = V.Tally()
    for exp in experiments:
        mine = _holds(values, exp, aqm)
        if mine is None:
            continue
        for other in SCHEMES:
            theirs = _holds(values, exp, other)
            if other == aqm or theirs is None:
                continue
            a, b = values[(exp, aqm, STD)], values[(exp, other, STD)]
            what = f"{NAMES[exp]}: {DISPLAY[aqm]} mean {values[(exp, aqm, MEAN)]:.1f} STD {a:.1f}"
            what += f" vs {DISPLAY[other]} mean {values[(exp, other, MEAN)]:.1f} STD {b:.1f}"
            if not mine:
                tally.add(-1, what)
            elif not theirs:
                tally.add(1, what)
            else:
                tally.add(V.sign(STD, a, b), what)
    return tally


def lower(
    values: Values, experiments: Iterable[str], metric: str, winner: str, losers: Sequence[str]
) -> V.Tally:
    """The winner's `metric` (`"queue_dev_pkts"`: |mean − target|) below each loser's, per
    experiment, beyond the tolerance of `verdicts.sign`."""
    tally = V.Tally()
    for exp in experiments:
        for loser in losers:
            a, b = _metric(values, exp, winner, metric), _metric(values, exp, loser, metric)
            if a is None or b is None:
                continue
            tally.add(
                V.sign(metric, a, b),
                f"{NAMES[exp]}: {DISPLAY[winner]} {a:.1f} vs {DISPLAY[loser]} {b:.1f}",
            )
    return tally


def _metric(values: Values, exp: str, aqm: str, metric: str) -> float | None:
    if metric == "queue_dev_pkts":
        mean = values.get((exp, aqm, MEAN))
        return None if mean is None else abs(mean - TARGET_PKTS)
    return values.get((exp, aqm, metric))


def below_target(values: Values) -> V.Tally:
    """ARED's mean more than `TARGET_TOL_PKTS` below the target in every Table 1 experiment,
    and within `ARED_UDP_PKTS` of 1393.9 with UDP (experiment 2)."""
    tally = V.Tally()
    for exp in TABLE1:
        mean = values.get((exp, "ared", MEAN))
        if mean is None:
            continue
        tally.add(
            1 if mean < TARGET_PKTS - TARGET_TOL_PKTS else -1, f"{NAMES[exp]}: ARED {mean:.1f}"
        )
        if exp == "exp2":
            centre, slack = ARED_UDP_PKTS
            tally.add(
                1 if abs(mean - centre) <= slack else -1, f"Exp. 2: ARED {mean:.1f} (paper 1393.9)"
            )
    return tally


def settles(values: Values, bounds: Mapping[str, float]) -> V.Tally:
    """The self-tuning RED's transient time (from t = 0) at most the bound of each experiment
    (a tie within `TRANSIENT_TOL_S`); a queue that never settles disagrees."""
    tally = V.Tally()
    for exp, bound in bounds.items():
        t = values.get((exp, "self_tuning_red", SETTLE))
        if t is None:
            continue
        s = 0 if abs(t - bound) <= TRANSIENT_TOL_S else (1 if t < bound else -1)
        shown = "never" if math.isinf(t) else f"{t:.1f} s"
        tally.add(s, f"{NAMES[exp]}: settles at {shown} (bound {bound:g} s)")
    return tally


OTHERS = ("rem", "ared", "pi")

CLAIMS: list[tuple[str, Sequence[str], str, str, str, Callable[[Values], V.Tally], bool]] = [
    (
        "ired-holds-target",
        ("fig5", "fig6", "fig7", *TABLE1),
        "§5.1–5.3",
        "the self-tuning RED keeps the queue at the 1500-packet target (Figs. 5–7, Table 1)",
        f"IRED's mean queue over the second half within {TARGET_TOL_PKTS:g} packets of 1500, "
        "every experiment",
        lambda v: holds_target(v, ("fig5", "fig6", "fig7", *TABLE1), "self_tuning_red"),
        True,
    ),
    (
        "ired-settles",
        ("fig5", "fig6", "fig7"),
        "§5.1–5.2",
        "the queue stabilises near the target after about 4 s (N = 200) and 10 s (N = 1000), "
        "and again soon after 100 flows join at 50 s",
        "IRED's transient time (docs/metrics.md, band ±10 %) at most 4 s, 10 s and 60 s "
        f"(10 s after the join) (within {TRANSIENT_TOL_S:g} s is a tie; never settling "
        "disagrees)",
        lambda v: settles(v, {"fig5": 4.0, "fig6": 10.0, "fig7": 60.0}),
        False,
    ),
    (
        "ired-smallest-std",
        TABLE1,
        "§5.3",
        "the self-tuning RED holds the target with the smallest STD of the four schemes",
        "IRED against each of REM, ARED and PI per experiment: agrees when IRED holds the "
        "target and the other misses it or fluctuates more; disagrees when IRED misses the "
        "target or the other holds it with a smaller STD",
        lambda v: best_at_target(v, TABLE1, "self_tuning_red"),
        True,
    ),
    (
        "rem-oscillates-most",
        TABLE1,
        "§5.3",
        "REM oscillates the most (the largest STD)",
        "each of ARED's, PI's and IRED's STD below REM's, every experiment",
        lambda v: _merge(lower(v, TABLE1, STD, other, ("rem",)) for other in SCHEMES[1:]),
        True,
    ),
    (
        "ared-below-target",
        TABLE1,
        "§5.3",
        "Adaptive RED settles below the target (at about 1393 with UDP), with a small STD",
        f"ARED's mean more than {TARGET_TOL_PKTS:g} packets below 1500 in every experiment, "
        f"and within {ARED_UDP_PKTS[1]:g} of 1393.9 in experiment 2",
        below_target,
        True,
    ),
    (
        "pi-second-best",
        TABLE1,
        "§5.3",
        "PI is second best: it holds the target with less fluctuation than REM and less "
        "deviation from the target than ARED",
        "PI's STD below REM's and PI's |mean − 1500| below ARED's, every experiment",
        lambda v: lower(v, TABLE1, STD, "pi", ("rem",)).merge(
            lower(v, TABLE1, "queue_dev_pkts", "pi", ("ared",))
        ),
        True,
    ),
]
"""(id, experiments, section, claim, criterion, tally, whether the paper prints the numbers
to judge it)."""


def _merge(tallies: Iterable[V.Tally]) -> V.Tally:
    out = V.Tally()
    for t in tallies:
        out = out.merge(t)
    return out


def evaluate(table: pd.DataFrame) -> list[Claim]:
    """Every claim with at least one of its experiments in `table` (chen2011.comparison),
    judged on our seed means; `reference` holds the verdict on the paper's own numbers."""
    ours = _values(table, "ours")
    paper = _values(table, "published")
    present = set(table["experiment"]) if not table.empty else set()
    claims = []
    for cid, experiments, source, text, criterion, tally_of, printed in CLAIMS:
        if not present.intersection(experiments):
            continue
        where = ", ".join(NAMES[e] for e in experiments if e in present)
        claim = Claim(cid, where, source, text, criterion)
        judged(claim, tally_of, ours, paper if printed else None, "read off the paper's figures")
        claims.append(claim)
    return claims
