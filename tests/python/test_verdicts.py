"""Verdict criteria and the BetaRED claims on constructed tables: data built to agree gets
"Agrees", data built against the claim gets "Disagrees"."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from aqmlab.papers import verdicts as V
from aqmlab.papers.base import FigureOutcome
from aqmlab.papers.betared.claims import evaluate
from aqmlab.papers.betared.report import render
from aqmlab.papers.report import verdict_text


def test_verdict_thresholds():
    assert V.verdict_from_counts(3, 1, 0) == V.AGREES
    assert V.verdict_from_counts(2, 1, 0) == V.PARTLY
    assert V.verdict_from_counts(1, 1, 0) == V.DISAGREES
    assert V.verdict_from_counts(0, 3, 0) == V.DISAGREES
    assert V.verdict_from_counts(1, 0, 3) == V.INCONCLUSIVE
    assert V.verdict_from_counts(0, 0, 0) == V.INCONCLUSIVE


def test_sign_uses_tolerance_and_direction():
    assert V.sign("throughput_mbps", 45.0, 44.0) == 1
    assert V.sign("throughput_mbps", 45.0, 45.05) == 0
    assert V.sign("jitter_ms", 1.0, 2.0) == 1
    assert V.sign("jitter_ms", 1.0, float("nan")) == 0
    assert V.sign("queue_dev_pkts", 10.0, 11.0) == 0  # within 2.5 packets


def test_trend_paired_best_irregular():
    df = pd.DataFrame({"g": [0, 0, 0], "x": [1, 2, 3], "jitter_ms": [3.0, 2.0, 1.0]})
    assert V.trend(df, "x", "jitter_ms", ["g"], "increasing").agree == 2
    t = V.trend(df, "x", "jitter_ms", ["g"], "decreasing")
    assert (t.agree, t.disagree, len(t.against)) == (0, 2, 2)
    pair = pd.DataFrame({"g": [0, 0], "who": ["a", "b"], "drop_rate": [0.01, 0.02]})
    assert V.paired(pair, "who", "a", "b", "drop_rate", ["g"]).verdict == V.AGREES
    assert V.paired(pair, "who", "b", "a", "drop_rate", ["g"]).verdict == V.DISAGREES
    three = pd.DataFrame({"g": 0, "who": ["a", "b", "c"], "throughput_mbps": [47.0, 40.0, 47.0]})
    assert V.best(three, "who", "a", "throughput_mbps", ["g"]).ties == 1
    assert V.best(three, "who", "b", "throughput_mbps", ["g"]).disagree == 1
    zig = pd.DataFrame({"g": 0, "x": [1, 2, 3], "throughput_mbps": [40.0, 45.0, 41.0]})
    mono = zig.assign(throughput_mbps=[40.0, 42.0, 44.0])
    assert V.irregular(zig, "x", "throughput_mbps", ["g"]).verdict == V.AGREES
    assert V.irregular(mono, "x", "throughput_mbps", ["g"]).verdict == V.DISAGREES


# --- constructed tables, one per figure -----------------------------------------------------


def _base_metrics(score: float) -> dict:
    """Five metrics that all improve as `score` grows (score in [0, 1])."""
    return {
        "avg_queue_pkts": 250.0 + 200.0 * (1 - score),
        "std_queue_pkts": 10.0 + 100.0 * (1 - score),
        "drop_rate": 0.01 + 0.05 * (1 - score),
        "throughput_mbps": 40.0 + 8.0 * score,
        "delay_mean_ms": 30.0 + 40.0 * (1 - score),
        "jitter_ms": 0.5 + 2.0 * (1 - score),
    }


def _equilibrium(swept: str, values, agree: bool) -> pd.DataFrame:
    rows = []
    ns = [100, 400, 800]
    for (ti, thr), (vi, v), (ni, n) in itertools.product(
        enumerate(["(0, 1000)", "(200, 400)"]), enumerate(values), enumerate(ns)
    ):
        # deviation shrinks with the swept value's index, with N and with close thresholds
        rank = vi if swept == "p_max" else len(values) - 1 - vi
        dev = 400.0 / (1 + rank) / (1 + ni) / (1 + ti)
        if not agree:
            dev = 400.0 - dev
        rows.append(
            {
                "thresholds": thr,
                swept: v,
                "N": n,
                "seed": 1,
                **_base_metrics(0.5),
                "avg_queue_pkts": 250.0 + dev,
            }
        )
    return pd.DataFrame(rows)


def _theta_table(load: str, loads, agree: bool) -> pd.DataFrame:
    rows = []
    thetas = [0.05, 0.1, 0.2, 0.3]
    zig = [44.0, 46.0, 43.0, 47.0]
    for aqm, (ti, theta), n in itertools.product(
        ["abetared", "dbetared"], enumerate(thetas), loads
    ):
        good = aqm == "dbetared"
        m = _base_metrics(0.8 if good == agree else 0.2)
        m["throughput_mbps"] = (zig[ti] if agree else 40.0 + ti) + (0.5 if good == agree else 0)
        m["jitter_ms"] = (1.0 + ti if agree else 5.0 - ti) * (0.5 if good == agree else 1.0)
        rows.append({"aqm": aqm, "theta": theta, load: n, "seed": 1, **m})
    return pd.DataFrame(rows)


def _w_table(agree: bool) -> pd.DataFrame:
    ws = [0.002, 0.01, 0.1, 0.5]
    return pd.DataFrame(
        [
            {"w": w, "N_max": n, "seed": 1, **_base_metrics(i / 3 if agree else 1 - i / 3)}
            for (i, w), n in itertools.product(enumerate(ws), [400, 800])
        ]
    )


def _aqm_table(agree: bool, n_max=(200, 800, 1200)) -> pd.DataFrame:
    aqms = ["abetared", "dbetared", "ared", "codel", "pie"]
    rows = []
    for aqm, n in itertools.product(aqms, n_max):
        score = {"dbetared": 0.9, "abetared": 0.5, "ared": 0.4, "codel": 0.3, "pie": 0.2}[aqm]
        if not agree:
            score = 1.0 - score
        rows.append({"aqm": aqm, "N_max": n, "seed": 1, **_base_metrics(score)})
    return pd.DataFrame(rows)


def tables(agree: bool) -> dict[str, pd.DataFrame]:
    return {
        "fig3": _equilibrium("p_max", [0.1, 0.5, 1.0], agree),
        "fig4": _equilibrium("theta", [0.05, 0.1, 0.3], agree),
        "fig5": _theta_table("N", [200, 800], agree),
        "fig6": _theta_table("N_max", [400, 1200], agree),
        "fig7": _w_table(agree),
        "fig8": _aqm_table(agree),
        "fig9": _aqm_table(agree, n_max=(800,)).drop(columns="N_max"),
    }


@pytest.mark.parametrize("agree", [True, False])
def test_every_claim_follows_constructed_data(agree):
    claims = evaluate(tables(agree))
    ids = [c.id for c in claims]
    assert ids == [
        "fig3a",
        "fig3b",
        "fig3c",
        "fig4a",
        "fig4b",
        "fig4c",
        "fig5a",
        "fig5b",
        "fig5c",
        "fig5d",
        "fig6a",
        "fig6b",
        "fig6c",
        "fig7",
        "fig8",
        "conclusion",
        "fig9",
    ]
    expected = V.AGREES if agree else V.DISAGREES
    wrong = {c.id: (c.verdict, c.evidence) for c in claims if c.verdict != expected}
    assert not wrong
    for c in claims:
        assert c.criterion and c.evidence
        assert bool(c.against) != agree or c.id == "fig9"


def test_missing_figures_are_not_run():
    t = tables(True)
    del t["fig7"]
    claims = {c.id: c for c in evaluate(t)}
    assert claims["fig7"].verdict == V.NOT_RUN
    assert claims["fig8"].verdict == V.AGREES


def test_report_lists_every_claim(tmp_path):
    from aqmlab.sweeps.experiment import Experiment
    from conftest import REPO_ROOT

    t = tables(True)
    claims = evaluate(t)
    figures = []
    for n in range(3, 10):
        exp = Experiment.load(REPO_ROOT / "experiments" / "betared" / f"fig{n}.toml", quick=True)
        figures.append(
            FigureOutcome(exp, t[exp.name], runs=len(t[exp.name]), stored=len(t[exp.name]))
        )
    text = render("BetaRED", "aqmlab reproduce betared --quick", figures, claims, {"mode": "quick"})
    assert text.count("- verdict: **Agrees**") == len(claims)
    for c in claims:
        assert f"**Claim {c.id}**" in text
    assert "## Known modelling differences" in text
    assert "![Fig. 8](figures/fig8.png)" in text
    assert "Agrees" in verdict_text(claims)
