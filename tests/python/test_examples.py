"""The scripts under examples/ run from any folder and write sane results."""

from __future__ import annotations

import math
import subprocess
import sys

import pandas as pd

from aqmlab import RunResult
from conftest import REPO_ROOT

FIRST_STUDY = REPO_ROOT / "examples" / "first_study.py"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _first_study(*args, cwd):
    return subprocess.run(
        [sys.executable, str(FIRST_STUDY), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_first_study_writes_a_run_a_table_and_a_figure(tmp_path):
    proc = _first_study(cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "results" / "first-study"
    assert str(out.relative_to(tmp_path)) in proc.stdout

    run = RunResult.read(out / "run-red-50")
    assert run.summary_dict["aqm"] == "red"
    assert run.summary_dict["flows_total"] == 50
    for suffix in ("png", "svg"):
        assert (out / "run-red-50" / "figures" / f"run-red-50.{suffix}").stat().st_size > 10_000

    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 9
    assert set(df["aqm"]) == {"droptail", "red", "betared"}
    assert sorted(set(df["flows"])) == [20, 50, 100]
    metrics = ["avg_queue_pkts", "drop_rate", "throughput_mbps", "delay_mean_ms", "jitter_ms"]
    assert all(math.isfinite(v) for v in df[metrics].to_numpy().ravel())
    assert df["avg_queue_pkts"].between(0, 1000).all()
    assert df["drop_rate"].between(0, 1).all()
    assert df["throughput_mbps"].between(1, 50).all()  # a 50 Mb/s bottleneck
    assert (df["delay_mean_ms"] > 12).all()  # at least the 12 ms propagation delay
    by = df.pivot(index="flows", columns="aqm", values="avg_queue_pkts")
    assert (by["droptail"] > 2 * by["red"]).all()  # drop tail fills the buffer, RED does not

    png = (out / "sweep.png").read_bytes()
    assert png[:8] == PNG_MAGIC and len(png) > 10_000
    assert (out / "sweep.svg").stat().st_size > 10_000


def test_first_study_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    proc = _first_study(str(tmp_path), cwd=tmp_path)
    assert proc.returncode != 0
    assert "not a new or empty folder" in proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
