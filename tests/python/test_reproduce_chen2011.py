"""The Chen, Hu & Ji (2011) reproduction: published numbers, the paper's statistics from a
time series, the side-by-side table, the claims' criteria, part selection, and a small
end-to-end reproduction of Figs. 5–6."""

import math
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from aqmlab.papers import catalog
from aqmlab.papers import verdicts as V
from aqmlab.papers.chen2011 import claims as claims_chen2011
from aqmlab.papers.chen2011 import paper as chen2011
from aqmlab.papers.chen2011 import spec as chen2011_spec
from aqmlab.papers.reproduce import parse_parts
from aqmlab.sweeps.experiment import Experiment, ExperimentError


def test_published_numbers_cover_table1_and_figs_5_6():
    pub = chen2011.published()
    assert len(pub) == 2 * 3 + 4 * 4 * 2
    value = pub.set_index(["experiment", "aqm", "metric"])["published"]
    assert value[("exp2", "ared", "avg_queue_pkts")] == pytest.approx(1393.9)
    assert value[("exp1", "self_tuning_red", "std_queue_pkts")] == pytest.approx(39.3947)
    assert value[("fig6", "self_tuning_red", "settle_time_s")] == 10


def test_every_part_has_its_experiment_files():
    root = chen2011.experiments_root()
    assert catalog.paper("chen2011").parts == chen2011_spec.PARTS
    for numbers in chen2011_spec.PARTS.values():
        for stems in numbers.values():
            for stem in stems:
                exp = Experiment.load(root / f"{stem}.toml", quick=True)
                assert exp.runs(), stem
    # Table 1's four experiments each run the paper's four schemes.
    for exp_id in chen2011_spec.TABLE1:
        exp = Experiment.load(root / "tables" / f"{chen2011_spec.SOURCES[exp_id].experiment}.toml")
        assert list(exp.axes[0].values) == list(chen2011_spec.SCHEMES)


def test_queue_stats_take_the_second_half():
    t = np.arange(0, 100.01, 0.1)
    q = np.where(t < 50, 0.0, np.where(np.arange(len(t)) % 2 == 0, 1450.0, 1550.0))
    traces = pd.DataFrame({"t_s": t, "queue_pkts": q, "aqm_p_max": np.linspace(0.01, 0.02, len(t))})
    stats = chen2011.queue_stats(traces, 100.0)
    assert stats["avg_queue_pkts"] == pytest.approx(1500.0, abs=0.2)
    assert stats["std_queue_pkts"] == pytest.approx(50.0, abs=0.1)
    assert stats["p_max_end"] == pytest.approx(0.02)
    assert math.isnan(chen2011.queue_stats(traces.drop(columns="aqm_p_max"), 100.0)["p_max_end"])


def _table(values: dict) -> pd.DataFrame:
    pub = chen2011.published()
    ours = pub.rename(columns={"published": "ours"}).assign(seeds=1, seed_min=0.0, seed_max=0.0)
    for key, v in values.items():
        mask = (ours["experiment"] == key[0]) & (ours["aqm"] == key[1]) & (ours["metric"] == key[2])
        ours.loc[mask, "ours"] = v
    return chen2011.comparison(pub, ours)


def test_claims_on_the_papers_own_numbers_and_on_a_failing_ired():
    same = {c.id: c for c in claims_chen2011.evaluate(_table({}))}
    for cid in ("ired-holds-target", "ired-smallest-std", "rem-oscillates-most"):
        assert same[cid].verdict == V.AGREES, cid
        assert same[cid].reference.startswith(V.AGREES)
    assert same["ared-below-target"].verdict == V.AGREES
    # Transient times of 4 and 10 s meet their bounds; Fig. 7 has no run here.
    assert same["ired-settles"].verdict == V.INCONCLUSIVE
    failing = {
        (e, "self_tuning_red", "avg_queue_pkts"): 1100.0
        for e in ("fig5", "exp1", "exp2", "exp3a", "exp3b")
    }
    failing[("fig5", "self_tuning_red", "settle_time_s")] = math.inf
    bad = {c.id: c for c in claims_chen2011.evaluate(_table(failing))}
    assert bad["ired-holds-target"].verdict == V.DISAGREES
    assert bad["ired-smallest-std"].verdict == V.DISAGREES
    assert "Exp. 1: IRED mean 1100.0" in bad["ired-smallest-std"].against[0]
    assert bad["ired-settles"].against == ["Fig. 5: settles at never (bound 4 s)"]


def test_parts_of_both_kinds_and_bad_selections():
    paper = catalog.paper("chen2011")
    assert parse_parts("7,5", paper, "figure") == [("figure", 5), ("figure", 7)]
    assert paper.experiments([("figure", 5), ("figure", 6)]) == ["figures/fig5_6"]
    assert len(paper.experiments([("table", 1)])) == 4
    with pytest.raises(ExperimentError, match="no figure 4"):
        parse_parts("4", paper, "figure")
    with pytest.raises(ExperimentError, match="no table 2"):
        parse_parts("2", paper, "table")
    with pytest.raises(ExperimentError, match="use --figures"):
        parse_parts("1", catalog.paper("betared"), "table")


def test_bad_selection_is_one_line_exit_2(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", "reproduce", "chen2011", "--tables", "3"]
        + ["--out", str(tmp_path / "x")],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "no table 3" in p.stderr
    assert not (tmp_path / "x").exists()


def test_small_reproduction_end_to_end(tmp_path, monkeypatch):
    """Figs. 5–6 over 4 s: the side-by-side table, the paper-layout figures, the model half
    and the report are written, and a second run reuses every stored run."""
    exp_dir = tmp_path / "experiments" / "chen2011"
    shutil.copytree(chen2011.experiments_root(), exp_dir)
    path = exp_dir / "figures" / "fig5_6.toml"
    path.write_text(path.read_text().replace("[fixed]\n", "[fixed]\nduration_s = 4.0\n"))
    monkeypatch.chdir(tmp_path)
    from aqmlab.papers.reproduce import reproduce

    out = tmp_path / "out"
    parts = [("figure", 5), ("figure", 6)]
    first = reproduce("chen2011", out, quick=True, jobs=1, parts=parts, progress=False)
    assert first.ok, first.problems
    side = pd.read_csv(out / "tables" / "chen2011_comparison.csv")
    fig6 = side[(side["experiment"] == "fig6") & (side["metric"] == "avg_queue_pkts")].iloc[0]
    assert fig6["published"] == 1500.0
    assert fig6["difference"] == pytest.approx(fig6["ours"] - 1500.0)
    assert set(side["experiment"]) == {"fig5", "fig6"}
    for name in ("fig5.png", "fig6.svg", "fig5_6.png"):
        assert (out / "figures" / name).stat().st_size > 5_000
    assert (out / "model" / "report.md").is_file()
    report = (out / "report.md").read_text()
    assert "| Fig. 6 | IRED | 1500.0 |" in report
    assert "ired-settles" in report and "rem-oscillates-most" not in report
    again = reproduce("chen2011", out, quick=True, jobs=1, parts=parts, progress=False)
    assert again.sweep.ran == 0 and again.sweep.skipped == 2
