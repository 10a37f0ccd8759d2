"""The claims of the BetaRED paper (Giménez et al., Appl. Sci. 2022, §4.3, §5.3, §6 and the
captions of Figs. 3–9), each tested on our tables by an explicit criterion (`papers.verdicts`).

The paper gives no numbers for its figures, only the captions and the text, so every claim
here is qualitative: a trend, a ranking or a comparison."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from .. import verdicts as V
from ..claims import Claim

Q_TARGET = 250.0
"""q_target = C·T_target = 6250 packets/s × 40 ms (§3.1, eq. (10))."""

GRID_KEYS = {
    "fig3": ("thresholds", "p_max", "N"),
    "fig4": ("thresholds", "theta", "N"),
    "fig5": ("aqm", "theta", "N"),
    "fig6": ("aqm", "theta", "N_max"),
    "fig7": ("w", "N_max"),
    "fig8": ("aqm", "N_max"),
    "fig9": ("aqm",),
}
"""The grid columns of each figure's table (the seeds are averaged over them)."""

THRESHOLDS_WIDE = "(0, 1000)"
THRESHOLDS_CLOSE = "(200, 400)"


def seed_means(df: pd.DataFrame, figure: str) -> pd.DataFrame:
    """Mean of every numeric column over the seeds of each grid point, with the queue's
    distance to q_target added (verdicts.with_queue_deviation)."""
    keys = [k for k in GRID_KEYS[figure] if k in df.columns]
    numeric = [
        c
        for c in df.columns
        if c not in keys and c != "seed" and pd.api.types.is_numeric_dtype(df[c])
    ]
    means = df.groupby(keys, sort=False)[numeric].mean().reset_index()
    return V.with_queue_deviation(means, Q_TARGET)


def _metric_name(metric: str) -> str:
    return {
        "avg_queue_pkts": "|AQL − q_target|",
        "queue_dev_pkts": "|AQL − q_target|",
        "queue_rms_dev_pkts": "RMS distance of the queue from q_target",
        "drop_rate": "drop rate",
        "throughput_mbps": "throughput",
        "delay_mean_ms": "delay",
        "jitter_ms": "jitter",
    }.get(metric, metric)


def _five(df: pd.DataFrame, fn: Callable[[str], V.Tally]) -> tuple[V.Tally, dict[str, V.Tally]]:
    """Apply a tally to each of the paper's five metrics (the AQL judged by its distance to
    q_target); returns the pooled tally and the one of each metric."""
    per = {m: fn(V.COMPARED.get(m, m)) for m in V.PAPER_METRICS}
    total = V.Tally()
    for t in per.values():
        total = total.merge(t)
    return total, per


def _per_metric_text(per: Mapping[str, V.Tally]) -> str:
    parts = []
    for m, t in per.items():
        decided = t.agree + t.disagree
        parts.append(f"{_metric_name(V.COMPARED.get(m, m))} {t.agree}/{decided} decided")
    return "per metric (agreeing/decided): " + "; ".join(parts)


def _upper_half(values: Sequence[float]) -> list[float]:
    values = sorted(set(values))
    return values[len(values) // 2 :]


def _fill(claim: Claim, tally: V.Tally, extra: str = "", unit: str = "comparisons") -> Claim:
    claim.verdict = tally.verdict
    claim.evidence = tally.summary(unit) + (f". {extra}" if extra else "")
    claim.against = tally.against
    return claim


# --- Figs. 3 and 4: BetaRED's equilibrium queue -------------------------------------------


def _equilibrium_claims(df: pd.DataFrame, figure: str, swept: str) -> list[Claim]:
    fig = figure.replace("fig", "Fig. ")
    m = seed_means(df, figure)
    if swept == "p_max":
        first = Claim(
            f"{figure}a",
            figure,
            f"§4.3 and {fig} caption",
            "As p_max increases, the equilibrium average queue length (last 125 s) gets "
            "closer to q_target = 250 packets.",
            "At every (thresholds, N): compare |AQL − q_target| between consecutive p_max "
            "values; agrees when it is smaller at the larger p_max.",
        )
        _fill(first, V.trend(m, "p_max", "queue_dev_pkts", ["thresholds", "N"], "increasing"))
    else:
        first = Claim(
            f"{figure}a",
            figure,
            f"§4.3 and {fig} caption",
            "As θ (hence σ) decreases, the equilibrium average queue length gets closer to "
            'q_target ("better stability results are obtained as the value of θ decreases").',
            "At every (thresholds, N): compare |AQL − q_target| between consecutive θ values; "
            "agrees when it is smaller at the smaller θ.",
        )
        _fill(first, V.trend(m, "theta", "queue_dev_pkts", ["thresholds", "N"], "decreasing"))
    second = Claim(
        f"{figure}b",
        figure,
        f"{fig} caption",
        "As the level of congestion (N) increases, the equilibrium average queue length gets "
        "closer to q_target.",
        f"At every (thresholds, {swept}): compare |AQL − q_target| between consecutive N "
        "values; agrees when it is smaller at the larger N.",
    )
    _fill(second, V.trend(m, "N", "queue_dev_pkts", ["thresholds", swept], "increasing"))
    third = Claim(
        f"{figure}c",
        figure,
        f"§4.3 and {fig} caption",
        "Thresholds closer to q_target, (q_min, q_max) = (200, 400) instead of (0, 1000), "
        "bring the equilibrium average queue length closer to q_target.",
        f"At every ({swept}, N): compare |AQL − q_target| of (200, 400) with (0, 1000); "
        "agrees when (200, 400) is closer.",
    )
    _fill(
        third,
        V.paired(
            m, "thresholds", THRESHOLDS_CLOSE, THRESHOLDS_WIDE, "queue_dev_pkts", [swept, "N"]
        ),
    )
    return [first, second, third]


# --- Figs. 5 and 6: ABetaRED against DBetaRED over θ --------------------------------------


def _theta_claims(df: pd.DataFrame, figure: str, load: str) -> list[Claim]:
    fig = figure.replace("fig", "Fig. ")
    scenario = "scenario 1, constant N" if figure == "fig5" else "scenario 2, N steps to N_max"
    m = seed_means(df, figure)
    claims = []
    c = Claim(
        f"{figure}a",
        figure,
        "§5.3",
        f'In both ABetaRED and DBetaRED the throughput is "quite unpredictable" for '
        f"different θ ({scenario}).",
        f"For each (AQM, {load}) series over θ: agrees when its throughput changes (beyond the "
        "tolerance) go both up and down; disagrees when it is monotone or flat.",
    )
    claims.append(
        _fill(c, V.irregular(m, "theta", "throughput_mbps", ["aqm", load]), unit="series")
    )
    c = Claim(
        f"{figure}b",
        figure,
        "§5.3",
        f"The jitter is lower the smaller θ (hence σ) is ({scenario}).",
        f"At every (AQM, {load}): compare jitter between consecutive θ values; agrees when it "
        "is lower at the smaller θ.",
    )
    claims.append(_fill(c, V.trend(m, "theta", "jitter_ms", ["aqm", load], "decreasing")))
    total, per = _five(
        m, lambda metric: V.paired(m, "aqm", "dbetared", "abetared", metric, [load, "theta"])
    )
    caption = (
        "Overall, the DBetaRED algorithm exhibits better performance [than ABetaRED]."
        if figure == "fig5"
        else "As in the non-dynamic scenario (Figure 5), the DBetaRED algorithm performs "
        "better than the ABetaRED algorithm."
    )
    c = Claim(
        f"{figure}c",
        figure,
        f"{fig} caption",
        caption,
        f"At every ({load}, θ) and for each of the five metrics (AQL by its distance to "
        "q_target; lower drop rate, delay, jitter; higher throughput): agrees when DBetaRED "
        "is better than ABetaRED.",
    )
    claims.append(_fill(c, total, _per_metric_text(per)))
    if figure == "fig5":
        jitter = per["jitter_ms"]
        c = Claim(
            "fig5d",
            figure,
            "Fig. 5 caption",
            "DBetaRED's advantage over ABetaRED shows especially in the end-to-end jitter.",
            "At every (N, θ): agrees when DBetaRED's jitter is lower than ABetaRED's (same "
            "rule as 5c, jitter only); the share is also set against 5c's pooled share.",
        )
        pooled = total.agree / max(1, total.agree + total.disagree)
        claims.append(
            _fill(c, jitter, f"pooled share over the five metrics (5c): {100 * pooled:.0f} %")
        )
    return claims


# --- Fig. 7: DBetaRED against w -------------------------------------------------------------


def _w_claims(df: pd.DataFrame) -> list[Claim]:
    m = seed_means(df, "fig7")
    total, per = _five(m, lambda metric: V.trend(m, "w", metric, ["N_max"], "increasing"))
    by_load = []
    for n_max in sorted(m["N_max"].unique()):
        sub = m[m["N_max"] == n_max]
        t, _ = _five(
            sub, lambda metric, sub=sub: V.trend(sub, "w", metric, ["N_max"], "increasing")
        )
        by_load.append(f"N_max={n_max:g}: {t.verdict.lower()} ({t.agree}/{t.agree + t.disagree})")
    c = Claim(
        "fig7",
        "fig7",
        "§5.3 and Fig. 7 caption",
        "The performance of DBetaRED increases as w increases, whatever the level of congestion.",
        "At every N_max and for each of the five metrics: compare consecutive w values; "
        "agrees when the larger w is better.",
    )
    return [_fill(c, total, _per_metric_text(per) + "; per N_max: " + "; ".join(by_load))]


# --- Figs. 8 and 9, §6: DBetaRED against ABetaRED, ARED, CoDel and PIE ----------------------


def _comparison_claims(df8: pd.DataFrame | None, df9: pd.DataFrame | None) -> list[Claim]:
    claims = []
    c8 = Claim(
        "fig8",
        "fig8",
        "§5.3 and Fig. 8 caption",
        "When fluctuations and the congestion level grow, all performance metrics of DBetaRED "
        "outperform all the other AQMs (ABetaRED, ARED, CoDel, PIE).",
        "At each N_max of the upper half of the grid and for each of the five metrics: agrees "
        "when DBetaRED beats all four others beyond the tolerance, disagrees when any of them "
        "beats it, tie otherwise. The lower half is reported for the trend.",
    )
    c10 = Claim(
        "conclusion",
        "fig8",
        "§6",
        "DBetaRED stabilises the queue length, further improves throughput and reduces packet "
        "drops compared to the other AQMs, most notably in high-load scenarios.",
        "Fig. 8's data, N_max in the upper half of the grid: for each N_max and each of "
        "(RMS distance of the queue from q_target, throughput, drop rate), agrees when "
        "DBetaRED is the best of the five AQMs beyond the tolerance, disagrees when another "
        "is better. The lower half is reported for 'most notably at high load'.",
    )
    if df8 is not None and not df8.empty:
        m = seed_means(df8, "fig8")
        high = _upper_half(m["N_max"].tolist())
        hi, lo = m[m["N_max"].isin(high)], m[~m["N_max"].isin(high)]
        t_hi, per = _five(hi, lambda metric: V.best(hi, "aqm", "dbetared", metric, ["N_max"]))
        t_lo, _ = _five(lo, lambda metric: V.best(lo, "aqm", "dbetared", metric, ["N_max"]))
        extra = (
            f"upper half N_max ∈ {{{', '.join(f'{v:g}' for v in high)}}}; "
            + _per_metric_text(per)
            + f"; lower half: {t_lo.agree} of {t_lo.n} cells with DBetaRED best"
        )
        claims.append(_fill(c8, t_hi, extra, unit="(N_max, metric) cells"))
        three = ("queue_rms_dev_pkts", "throughput_mbps", "drop_rate")
        t_hi = t_lo = V.Tally()
        for metric in three:
            t_hi = t_hi.merge(V.best(hi, "aqm", "dbetared", metric, ["N_max"]))
            t_lo = t_lo.merge(V.best(lo, "aqm", "dbetared", metric, ["N_max"]))
        claims.append(
            _fill(
                c10,
                t_hi,
                f"lower half: {t_lo.agree} of {t_lo.n} cells with DBetaRED best",
                unit="(N_max, metric) cells",
            )
        )
    else:
        claims += [c8, c10]

    c9 = Claim(
        "fig9",
        "fig9",
        "§5.3 and Fig. 9 caption",
        "At N_max = 800, DBetaRED exhibits the highest stability around the target among all "
        "the AQMs.",
        "Stability = RMS distance of the instantaneous queue from q_target over the whole run, "
        "sqrt(std² + (AQL − q_target)²). Agrees when DBetaRED's is the lowest (ties within "
        "the tolerance count as lowest), partly agrees when it is second, disagrees otherwise.",
    )
    if df9 is not None and not df9.empty:
        m = seed_means(df9, "fig9").sort_values("queue_rms_dev_pkts")
        ranking = list(zip(m["aqm"], m["queue_rms_dev_pkts"]))
        best_value = ranking[0][1]
        mine = m.loc[m["aqm"] == "dbetared", "queue_rms_dev_pkts"]
        if mine.empty:
            c9.verdict = V.INCONCLUSIVE
            c9.evidence = "no DBetaRED run"
        else:
            mine = float(mine.iloc[0])
            better = sum(1 for _, v in ranking if V.sign("queue_rms_dev_pkts", v, mine) > 0)
            tied_best = V.sign("queue_rms_dev_pkts", best_value, mine) <= 0
            c9.verdict = V.AGREES if tied_best else (V.PARTLY if better == 1 else V.DISAGREES)
            c9.evidence = "RMS distance from q_target (packets), best first: " + ", ".join(
                f"{a} {v:.1f}" for a, v in ranking
            )
            if not tied_best:
                c9.against = [
                    f"{a} {v:.1f} < dbetared {mine:.1f}"
                    for a, v in ranking
                    if V.sign("queue_rms_dev_pkts", v, mine) > 0
                ]
    claims.append(c9)
    return claims


def evaluate(tables: Mapping[str, pd.DataFrame]) -> list[Claim]:
    """Every claim, judged on the figures' tables (a missing or empty table gives
    "Not run" for its claims)."""

    def have(fig: str) -> bool:
        df = tables.get(fig)
        return df is not None and not df.empty and all(k in df for k in GRID_KEYS[fig])

    claims: list[Claim] = []
    for fig, swept in (("fig3", "p_max"), ("fig4", "theta")):
        if have(fig):
            claims += _equilibrium_claims(tables[fig], fig, swept)
        else:
            claims += _equilibrium_claims(_empty(fig), fig, swept)
    for fig, load in (("fig5", "N"), ("fig6", "N_max")):
        claims += _theta_claims(tables[fig] if have(fig) else _empty(fig), fig, load)
    claims += _w_claims(tables["fig7"] if have("fig7") else _empty("fig7"))
    claims += _comparison_claims(
        tables["fig8"] if have("fig8") else None, tables["fig9"] if have("fig9") else None
    )
    for c in claims:
        if not have(c.figure):
            c.verdict, c.evidence, c.against = V.NOT_RUN, "this figure was not run", []
    return claims


def _empty(figure: str) -> pd.DataFrame:
    cols = list(GRID_KEYS[figure]) + [
        "avg_queue_pkts",
        "std_queue_pkts",
        "drop_rate",
        "throughput_mbps",
        "delay_mean_ms",
        "jitter_ms",
    ]
    return pd.DataFrame({c: pd.Series(dtype="float64") for c in cols})
