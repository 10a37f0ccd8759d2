"""The Li et al. (2014) reproduction: published numbers, the paper's metrics, the side-by-side
table, the claims' criteria, and a small end-to-end reproduction of one table."""

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.papers import catalog
from aqmlab.papers import verdicts as V
from aqmlab.papers.li2014 import claims as claims_li2014
from aqmlab.papers.li2014 import paper as li2014
from aqmlab.papers.li2014 import spec as li2014_spec
from aqmlab.papers.reproduce import parse_parts
from aqmlab.sweeps.experiment import ExperimentError

ROOT = Path(__file__).resolve().parents[2]


def test_published_numbers_cover_every_table_and_scheme():
    pub = li2014.published()
    assert len(pub) == 18 * 8 * 4 + 3 * 8 * 2
    assert set(pub["table"]) == set(range(1, 22))
    value = pub.set_index(["table", "aqm", "metric"])["published"]
    assert value[(1, "ared", "link_efficiency")] == pytest.approx(0.9524)
    assert value[(2, "pi", "std_queue_pkts")] == pytest.approx(252.60)
    assert value[(19, "nrl", "delay_std_ms")] == pytest.approx(32.1737)
    # Table 21 is printed in seconds: 0.1235 s.
    assert value[(21, "ared", "delay_mean_ms")] == pytest.approx(123.5)


def test_every_table_has_an_experiment_file():
    root = li2014.experiments_root()
    for n, stems in li2014_spec.PARTS.items():
        assert all((root / f"{stem}.toml").is_file() for stem in stems), n
    assert catalog.paper("li2014").parts == {"table": li2014_spec.PARTS}


def test_paper_metrics_by_hand():
    summary = {
        "window_start_s": 0.0,
        "window_end_s": 100.0,
        "delay_mean_ms": 90.0,
        "delay_std_ms": 7.0,
    }
    port = {
        "rate_mbps": 45.0,
        "throughput_mbps": 540_000 * 1040 * 8 / 100 / 1e6,
        "drop_rate": 0.2,
        "avg_queue_pkts": 301.0,
        "std_queue_pkts": 20.0,
    }
    m = li2014.paper_metrics(summary, port)
    # 540 000 packets of 1040 bytes in 100 s; 45 Mb/s in 1000-byte packets: 5625 packets/s;
    # 540 000 / 100 s / 5625 = 0.96.
    assert m["link_efficiency"] == pytest.approx(0.96)
    assert m["drop_rate"] == 0.2 and m["avg_queue_pkts"] == 301.0
    assert m["delay_mean_ms"] == 90.0


def test_comparison_difference_and_missing_values():
    pub = pd.DataFrame(
        [
            {"table": 1, "aqm": "pi", "metric": "avg_queue_pkts", "published": 454.72},
            {"table": 1, "aqm": "rem", "metric": "avg_queue_pkts", "published": 320.05},
        ]
    )
    ours = pd.DataFrame(
        [
            {
                "table": 1,
                "aqm": "pi",
                "metric": "avg_queue_pkts",
                "ours": 400.0,
                "seeds": 2,
                "seed_std": 3.0,
            }
        ]
    )
    t = li2014.comparison(pub, ours)
    assert list(t["aqm"]) == ["rem", "pi"]  # the paper's row order
    pi = t[t["aqm"] == "pi"].iloc[0]
    assert pi["difference"] == pytest.approx(400.0 - 454.72)
    assert math.isnan(t[t["aqm"] == "rem"].iloc[0]["ours"])


def test_smallest_std_claim_counts_each_pair():
    values = {
        (1, a, "std_queue_pkts"): v
        for a, v in {
            "neuron_pid": 10.0,
            "an_aqm": 20.0,
            "fapidnn": 30.0,
            "nrl": 200.0,
            "ared": 80.0,
            "rem": 130.0,
            "pi": 210.0,
        }.items()
    }
    tally = claims_li2014.better(
        values, (1,), "std_queue_pkts", li2014_spec.NEURON, li2014_spec.TRADITIONAL
    )
    # NRL (200) beats none of ARED 80 and REM 130, ties PI 210 within 1 %? |200-210| = 10 >
    # max(2.5, 2.1): no tie, so NRL beats PI. 4 x 3 = 12 pairs: 10 agree, 2 disagree.
    assert (tally.agree, tally.disagree, tally.ties) == (10, 2, 0)
    assert tally.verdict == V.AGREES


def test_transient_bound_and_never_settling():
    values = {
        (1, "neuron_pid", li2014_spec.TRANSIENT): 4.0,
        (1, "an_aqm", li2014_spec.TRANSIENT): 11.5,  # within 2 s of 10 s: a tie
        (1, "fapidnn", li2014_spec.TRANSIENT): 30.0,
        (1, "nrl", li2014_spec.TRANSIENT): math.nan,  # never settles
    }
    tally = claims_li2014.within(values, (1,), li2014_spec.NEURON, 10.0)
    assert (tally.agree, tally.disagree, tally.ties) == (1, 2, 1)
    assert any("never" in a for a in tally.against)


def test_claims_judge_ours_and_the_papers_numbers():
    pub = li2014.published()
    table = pub[pub["table"] == 2].copy()
    # Ours: ARED settles at 450 packets (not the paper's 700).
    table["ours"] = table["published"]
    table.loc[(table["aqm"] == "ared") & (table["metric"] == "avg_queue_pkts"), "ours"] = 450.0
    table["difference"] = table["ours"] - table["published"]
    claims = {c.id: c for c in claims_li2014.evaluate(table)}
    assert claims["ared-700"].verdict == V.DISAGREES
    assert claims["ared-700"].reference.startswith(V.AGREES)
    assert "ARED AQL 450.0" in claims["ared-700"].against[0]
    assert claims["pi-largest-std"].verdict == V.AGREES
    assert "neuron-two-bottlenecks" not in claims  # Tables 15-18 are not in the table


def test_parse_tables():
    paper = catalog.paper("li2014")
    assert parse_parts("16,1,1", paper, "table") == [("table", 1), ("table", 16)]
    with pytest.raises(ExperimentError, match="no table 22"):
        parse_parts("22", paper, "table")
    with pytest.raises(ExperimentError, match="--tables"):
        parse_parts("one", paper, "table")


def test_wrong_selection_flag_is_one_line_exit_2(tmp_path):
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "aqmlab.cli",
            "reproduce",
            "li2014",
            "--figures",
            "7",
            "--out",
            str(tmp_path / "x"),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "use --tables" in p.stderr
    assert not (tmp_path / "x").exists()


def test_small_reproduction_end_to_end(tmp_path, monkeypatch):
    """Table 1 with ARED and drop tail on a 10 s, 60-flow variant: the side-by-side table, the
    figure and the report are written, and a second run reuses every stored run."""
    exp_dir = tmp_path / "experiments" / "li2014"
    shutil.copytree(li2014.experiments_root(), exp_dir)
    text = (exp_dir / "tables" / "table1.toml").read_text()
    text = text.replace(
        'values = ["ared", "rem", "pi", "iapi", "neuron_pid", "an_aqm", "fapidnn", "nrl"]',
        'values = ["ared", "droptail"]',
    ).replace('"traffic.schedule.flows" = 500', '"traffic.schedule.flows" = 60\nduration_s = 10.0')
    (exp_dir / "tables" / "table1.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    from aqmlab.papers.reproduce import reproduce

    out = tmp_path / "out"
    first = reproduce("li2014", out, quick=True, jobs=1, parts=[("table", 1)], progress=False)
    assert first.ok, first.problems
    side = pd.read_csv(out / "tables" / "li2014_comparison.csv")
    ared = side[(side["aqm"] == "ared") & (side["metric"] == "avg_queue_pkts")].iloc[0]
    assert ared["published"] == pytest.approx(347.28)
    assert ared["difference"] == pytest.approx(ared["ours"] - 347.28)
    assert 0 < side[side["metric"] == "link_efficiency"]["ours"].dropna().max() <= 1000 / 1040
    assert (out / "figures" / "table1.png").stat().st_size > 10_000
    report = (out / "report.md").read_text()
    assert "## Table 1: 500 TCP connections, target 300 packets" in report
    assert "| ARED | 95.24% |" in report
    again = reproduce("li2014", out, quick=True, jobs=1, parts=[("table", 1)], progress=False)
    assert again.sweep.ran == 0 and again.sweep.skipped == 2
