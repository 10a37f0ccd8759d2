"""The claims of Li et al. (2014) (§3.2–3.9 and §4), each judged by an explicit criterion on
our numbers (`papers.verdicts`) and, where the paper's tables hold the numbers, on the paper's own.

A claim compares pairs of values: a tie when they differ by no more than the tolerance of
`verdicts.tolerance`, otherwise agreeing or disagreeing; the counts give the verdict. A
transient time is judged against a bound instead (within `TRANSIENT_TOL_S` is a tie)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd

from .. import verdicts as V
from ..claims import Claim, judged
from .spec import DISPLAY, NEURON, SCHEMES, TABLES, TRADITIONAL, TRANSIENT

Values = Mapping[tuple[int, str, str], float]
"""(table, aqm, metric) -> value."""

TRANSIENT_TOL_S = 2.0
"""A transient time within 2 s of a claimed bound is a tie (our 1-second bins, and the
reading of a time off a figure)."""

QUEUE_TABLES = tuple(sorted(n for n, s in TABLES.items() if "avg_queue_pkts" in s.metrics))


def _values(table: pd.DataFrame, column: str) -> dict[tuple[int, str, str], float]:
    out = {}
    for row in table.itertuples(index=False):
        v = getattr(row, column)
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            out[(int(row.table), row.aqm, row.metric)] = float(v)
    return out


def _deviation(values: Values, n: int, aqm: str) -> float | None:
    """|AQL − target| of one scheme in table `n`."""
    avg = values.get((n, aqm, "avg_queue_pkts"))
    return None if avg is None else abs(avg - TABLES[n].target_pkts)


def _get(values: Values, n: int, aqm: str, metric: str) -> float | None:
    if metric == "queue_dev_pkts":
        return _deviation(values, n, aqm)
    return values.get((n, aqm, metric))


def _fmt(metric: str, v: float) -> str:
    if metric == "drop_rate":
        return f"{100 * v:.2f} %"
    if metric == TRANSIENT:
        return "never" if math.isinf(v) else f"{v:.1f} s"
    return f"{v:.1f}"


def better(
    values: Values,
    tables: Iterable[int],
    metric: str,
    winners: Sequence[str],
    losers: Sequence[str],
) -> V.Tally:
    """Each winner against each loser in each table: agrees when the winner's `metric` is
    lower beyond the tolerance (`queue_dev_pkts`: |AQL − target|)."""
    tally = V.Tally()
    for n in tables:
        for w in winners:
            for lo in losers:
                if w == lo:
                    continue
                a, b = _get(values, n, w, metric), _get(values, n, lo, metric)
                if a is None or b is None:
                    continue
                tally.add(
                    V.sign(metric, a, b),
                    f"Table {n}: {DISPLAY[w]} {_fmt(metric, a)} vs {DISPLAY[lo]} {_fmt(metric, b)}",
                )
    return tally


def within(values: Values, tables: Iterable[int], aqms: Sequence[str], bound_s: float) -> V.Tally:
    """Each scheme's transient time at most `bound_s` (a tie within `TRANSIENT_TOL_S`); a
    queue that never settles disagrees."""
    tally = V.Tally()
    for n in tables:
        for aqm in aqms:
            t = values.get((n, aqm, TRANSIENT))
            if t is None:
                continue
            t = math.inf if math.isnan(t) else t
            s = 0 if abs(t - bound_s) <= TRANSIENT_TOL_S else (1 if t < bound_s else -1)
            tally.add(s, f"Table {n}: {DISPLAY[aqm]} settles at {_fmt(TRANSIENT, t)}")
    return tally


def band(values: Values, tables: Iterable[int], aqm: str, low: float, high: float) -> V.Tally:
    """The scheme's AQL inside [low, high] (agrees) or not (disagrees)."""
    tally = V.Tally()
    for n in tables:
        avg = values.get((n, aqm, "avg_queue_pkts"))
        if avg is not None:
            inside = low <= avg <= high
            tally.add(1 if inside else -1, f"Table {n}: {DISPLAY[aqm]} AQL {avg:.1f}")
    return tally


def _ranges(tables: Sequence[int]) -> str:
    return (
        "Tables " + ", ".join(str(n) for n in tables) if len(tables) > 1 else f"Table {tables[0]}"
    )


OTHERS = {a: tuple(s for s in SCHEMES if s != a) for a in SCHEMES}


def _transient_tally(values: Values) -> V.Tally:
    """PI's transient longer than every other scheme's (NaN: never settles, the longest)."""
    tally = V.Tally()
    for n in (1, 2):
        pi = values.get((n, "pi", TRANSIENT))
        if pi is None:
            continue
        pi = math.inf if math.isnan(pi) else pi
        for other in OTHERS["pi"]:
            t = values.get((n, other, TRANSIENT))
            if t is None:
                continue
            t = math.inf if math.isnan(t) else t
            s = 0 if pi == t or abs(pi - t) <= TRANSIENT_TOL_S else (1 if pi > t else -1)
            tally.add(
                s, f"Table {n}: PI {_fmt(TRANSIENT, pi)} vs {DISPLAY[other]} {_fmt(TRANSIENT, t)}"
            )
    return tally


CLAIMS: list[tuple[str, Sequence[int], str, str, str, Callable[[Values], V.Tally], bool]] = [
    (
        "neuron-settle",
        (1, 2, 3, 4),
        "§3.2",
        "the four neuron-based schemes converge to the target within about 10 s",
        "transient time (docs/metrics.md) of Neuron PID, AN-AQM, FAPIDNN and NRL at most 10 s "
        f"(within {TRANSIENT_TOL_S:g} s is a tie)",
        lambda v: within(v, (1, 2, 3, 4), NEURON, 10.0),
        False,
    ),
    (
        "neuron-smallest-std",
        QUEUE_TABLES,
        "§3.2–3.8, §4",
        "the four neuron-based schemes hold the queue with a smaller STD than ARED, REM and PI",
        "each neuron-based scheme's queue STD against each of ARED, REM and PI, every table",
        lambda v: better(v, QUEUE_TABLES, "std_queue_pkts", NEURON, TRADITIONAL),
        True,
    ),
    (
        "ared-700",
        (2,),
        "§3.2",
        "with 1500 connections ARED oscillates around 700 packets, above its max_th of 585",
        "ARED's AQL in [600, 800] packets",
        lambda v: band(v, (2,), "ared", 600.0, 800.0),
        True,
    ),
    (
        "pi-lowest-drop",
        (1, 2, 3, 4, 5, 6, 9, 10, 11, 12),
        "§3.2–3.5",
        "PI has the lowest packet drop ratio",
        "PI's drop ratio against every other scheme's, Tables 1–6 and 9–12",
        lambda v: better(v, (1, 2, 3, 4, 5, 6, 9, 10, 11, 12), "drop_rate", ("pi",), OTHERS["pi"]),
        True,
    ),
    (
        "pi-largest-std",
        (1, 2),
        "§3.2",
        "PI has the largest queue STD",
        "every other scheme's queue STD against PI's, Tables 1 and 2",
        lambda v: better(v, (1, 2), "std_queue_pkts", OTHERS["pi"], ("pi",)),
        True,
    ),
    (
        "pi-longest-transient",
        (1, 2),
        "§3.2",
        "PI has the longest transient, about 40 s",
        "PI's transient time against every other scheme's (a tie within "
        f"{TRANSIENT_TOL_S:g} s; a queue that never settles is the longest)",
        _transient_tally,
        False,
    ),
    (
        "iapi-improves-pi",
        (1, 2),
        "§3.2",
        "IAPI improves on ARED, REM and PI in both the average queue length and its STD",
        "IAPI's |AQL − target| and queue STD against each of ARED, REM and PI",
        lambda v: better(v, (1, 2), "queue_dev_pkts", ("iapi",), TRADITIONAL).merge(
            better(v, (1, 2), "std_queue_pkts", ("iapi",), TRADITIONAL)
        ),
        True,
    ),
    (
        "neuron-pid-lowest-drop",
        (1, 2),
        "§3.2",
        "Neuron PID has the lowest drop ratio of the four neuron-based schemes",
        "Neuron PID's drop ratio against AN-AQM's, FAPIDNN's and NRL's",
        lambda v: better(v, (1, 2), "drop_rate", ("neuron_pid",), NEURON),
        True,
    ),
    (
        "fapidnn-closest",
        (1, 2, 5, 6),
        "§3.2, §3.3",
        "FAPIDNN's average queue length is the closest to the target",
        "FAPIDNN's |AQL − target| against every other scheme's",
        lambda v: better(v, (1, 2, 5, 6), "queue_dev_pkts", ("fapidnn",), OTHERS["fapidnn"]),
        True,
    ),
    (
        "neuron-long-delay",
        (13,),
        "§3.6",
        "with a 500 ms round-trip propagation time the neuron-based schemes stay the most stable",
        "each neuron-based scheme's queue STD against each of ARED, REM and PI",
        lambda v: better(v, (13,), "std_queue_pkts", NEURON, TRADITIONAL),
        True,
    ),
    (
        "neuron-udp",
        (14,),
        "§3.7",
        "with UDP noise the neuron-based schemes keep the queue at the target and the most stable",
        "each neuron-based scheme's |AQL − target| and queue STD against each of ARED, REM, PI",
        lambda v: better(v, (14,), "queue_dev_pkts", NEURON, TRADITIONAL).merge(
            better(v, (14,), "std_queue_pkts", NEURON, TRADITIONAL)
        ),
        True,
    ),
    (
        "neuron-two-bottlenecks",
        (15, 16, 17, 18),
        "§3.8",
        "at both bottlenecks the neuron-based schemes hold the queue nearer the target and "
        "steadier than the traditional schemes",
        "each neuron-based scheme's |AQL − target| and queue STD against each of ARED, REM, PI "
        "at routers B and D",
        lambda v: better(v, (15, 16, 17, 18), "queue_dev_pkts", NEURON, TRADITIONAL).merge(
            better(v, (15, 16, 17, 18), "std_queue_pkts", NEURON, TRADITIONAL)
        ),
        True,
    ),
]
"""(id, tables, section, claim, criterion, tally, whether the paper's tables hold the
numbers to judge it)."""


def evaluate(table: pd.DataFrame) -> list[Claim]:
    """Every claim whose tables are in `table` (the side-by-side table of li2014.comparison),
    judged on our values; `reference` holds the verdict on the paper's own numbers."""
    ours = _values(table, "ours")
    paper = _values(table, "published")
    present = set(table["table"].astype(int)) if not table.empty else set()
    claims = []
    for cid, tables, source, text, criterion, tally_of, in_tables in CLAIMS:
        if not present.intersection(tables):
            continue
        claim = Claim(cid, _ranges(list(tables)), source, text, criterion)
        unprinted = "not in the tables (read off the paper's figures)"
        judged(claim, tally_of, ours, paper if in_tables else None, unprinted)
        claims.append(claim)
    return claims
