"""`aqmlab tune`: one-line errors for bad input with nothing written, a folder that belongs to
another study, and a tiny study that is reproducible with a fixed seed (whatever --jobs),
resumes after an interrupt and extends to more trials with the same result."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from aqmlab.cli.main import main
from aqmlab.sweeps.interrupt import Interrupted
from aqmlab.tune import front, space, tuning
from conftest import REPO_ROOT, SCENARIO1, assert_usage_error

needs_optuna = pytest.mark.skipif(
    find_spec("optuna") is None, reason="optuna is not installed (pip install 'aqmlab[tune]')"
)

needs_ray = pytest.mark.skipif(
    find_spec("ray") is None, reason="ray is not installed (pip install 'aqmlab[ray]')"
)

TINY = f"""
title = "tiny"
scenario = "{SCENARIO1.as_posix()}"
seeds = [1]
[fixed]
"queue.aqm" = "red"
duration_s = 2.0
"measure.window" = "all"
[[axes]]
name = "N"
key = "traffic.schedule.flows"
values = [5, 10]
[plot]
x = "N"
"""

STUDY = ["--trials", "4", "--batch", "2", "--rerun", "1", "--quiet"]
"""A tiny study: two batches of two trials, each trial two 2-second runs."""

OUTPUTS = (
    "study.json", "study.db", "trials.csv", "trials.parquet", "pareto.csv", "pareto.parquet",
    "rerun.csv", "rerun_seeds.csv", "pareto.png", "pareto.svg", "report.md",
)  # fmt: skip


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    return path


def cli(*args: str) -> subprocess.CompletedProcess:
    """Run `aqmlab ARGS` in this process (faster than a new interpreter for each case)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The tiny study run whole, on one worker."""
    folder = tmp_path_factory.mktemp("reference")
    path = folder / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    out = folder / "out"
    proc = cli("tune", "betared", "--on", str(path), "--out", str(out), "--jobs", "1", *STUDY)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["blue"], ['unknown AQM "blue"; allowed: droptail, red', "betared"]),
        (["betared", "--param", "nope"], ["--param nope", "tunable: q_min_pkts", "theta"]),
        (["betared", "--param", "spacing"], ["a flag or a choice", "tunable:"]),
        (["betared", "--param", "theta=0.5:0.1"], ["--param theta=0.5:0.1", "inverted range"]),
        (["betared", "--param", "theta=0.1:0.1"], ["empty or inverted range"]),
        (["betared", "--param", "w=0:1"], ["0 is outside what betared allows for w, (0, 1]"]),
        (["betared", "--param", "w=0.1:x"], ["'x' is not a finite number"]),
        (["betared", "--param", "theta=0.9:0.99"], ["--param theta: at 0.99", "q_target_pkts"]),
        (["betared", "--param", "w", "--param", "w=0.1:1"], ["--param w: given twice"]),
        (["betared", "--objective", "goodput:max"], ["unknown metric 'goodput'", "drop_rate"]),
        (["betared", "--objective", "drop_rate:up"], ["direction must be min or max"]),
        (["betared", "--objective", "probe_rtt_p99_ms"], ["send no latency probes"]),
        (["rem"], ["rem has no default parameters to tune", "tunable: phi"]),
        (["betared", "--batch", "1"], ["--batch 1: must be at least 2"]),
        (["betared", "--trials", "0"], ["argument --trials: invalid trial count '0'"]),
        (["betared", "--sampler", "grid"], ["--sampler", "invalid choice: 'grid'"]),
        (["betared", "--seed", str(2**32)], ["--seed 4294967296"]),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tiny, tmp_path, args, fragments):
    out = tmp_path / "out"
    proc = cli("tune", *args, "--on", str(tiny), "--out", str(out))
    assert_usage_error(proc, *fragments)
    assert not out.exists()


def test_without_optuna_the_command_says_what_to_install(tiny, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)  # import optuna raises ImportError
    out = tmp_path / "out"
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out))
    assert_usage_error(proc, "aqmlab tune needs optuna: pip install 'aqmlab[tune]'")
    assert not out.exists()


def test_a_tuned_parameter_on_an_axis_and_a_missing_experiment(tiny, tmp_path):
    axis = '[[axes]]\nname = "theta"\nkey = "queue.betared.theta"\nvalues = [0.1, 0.2]\n'
    path = tmp_path / "theta_axis.toml"
    path.write_text(TINY.replace("[plot]", axis + "[plot]"), encoding="utf-8")
    proc = cli("tune", "betared", "--on", str(path), "--out", str(tmp_path / "out"))
    assert_usage_error(proc, "axis 'theta' of theta_axis.toml sets queue.betared.theta")
    proc = cli("tune", "betared", "--on", str(tmp_path / "nope.toml"))
    assert_usage_error(proc, "nope.toml")
    assert_usage_error(cli("tune", "betared", "--on", ""), "--on: empty path")


def test_registry_ranges_are_read():
    assert space.parse_allowed("(0, 1]") == space.Limits(0.0, 1.0, True, False)
    assert space.parse_allowed("integer in [1, 2^32-1]").hi == 2**32 - 1
    assert space.parse_allowed(">= 0, with C·T_target in (0, limit_pkts)") == space.Limits(0.0)
    assert space.parse_allowed("0 (automatic) or (0, 1]").lo_open
    assert not space.parse_allowed("(q_min_pkts, q_max_pkts)").known
    theta, w = space.params_for("betared", [])
    assert (theta.name, theta.low, theta.high, theta.log) == ("theta", 0.01, 0.5, True)
    assert (w.low, w.high) == pytest.approx((0.01, 1.0))
    target = space.parse_param("codel", "target_ms")
    assert (target.low, target.high, target.log) == (0.5, 50.0, True)
    k = space.parse_param("step", "k_pkts=2.5:40:linear")
    assert (k.low, k.high, k.integer, k.log) == (3.0, 40.0, True, False)
    assert str(space.parse_objective("jain_fairness")) == "jain_fairness:max"


def test_the_front_and_the_chosen_points():
    goals = [space.Objective("delay_mean_ms", "min"), space.Objective("throughput_mbps", "max")]
    points = [[10, 40], [20, 45], [15, 40], [30, 44], [10, 40]]
    assert front.front_mask(points, goals) == [True, True, False, False, False]
    assert front.plus_minus(46.68137, 0.0731) == "46.681 ± 0.073"


@needs_optuna
def test_tiny_study_writes_its_front_and_is_reproducible(reference, tiny, tmp_path):
    for name in OUTPUTS:
        assert (reference / name).is_file(), name
    trials = (reference / "trials.csv").read_text(encoding="utf-8").splitlines()
    assert trials[0] == "trial,state,theta,w,delay_mean_ms,throughput_mbps,on_front,error"
    assert len(trials) == 5
    pareto = (reference / "pareto.csv").read_text(encoding="utf-8")
    assert "\ndefault," in pareto
    assert "## Pareto front" in (reference / "report.md").read_text(encoding="utf-8")
    # the same command on two workers: the same trials, the same front
    out = tmp_path / "again"
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out), "--jobs", "2", *STUDY)
    assert proc.returncode == 0, proc.stderr
    assert "Pareto front" in proc.stdout and "seeds 1-5" in proc.stdout
    for name in ("trials.csv", "pareto.csv", "rerun.csv"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    # run again: the study is resumed, nothing simulated
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out), *STUDY)
    assert proc.returncode == 0, proc.stderr
    assert " 0 simulated" in proc.stdout


@needs_optuna
@needs_ray
def test_a_study_on_ray_finds_the_same_trials(reference, tiny, tmp_path):
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_AUTH_MODE"] = "disabled"  # this instance listens on this machine only
    args = ["tune", "betared", "--on", str(tiny), "--out", str(out), *STUDY]
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", *args, "--backend", "ray", "--jobs", "2"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("trials.csv", "pareto.csv", "rerun.csv"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


@needs_optuna
def test_an_interrupted_study_resumes_to_the_same_trials(reference, tiny, tmp_path, monkeypatch):
    calls = []
    real = tuning.execute

    def stopped_in_the_second_batch(specs, *args, **kwargs):
        calls.append(len(specs))
        if len(calls) == 2:
            real(specs[:1], *args, **kwargs)  # a run finishes, then Ctrl-C
            raise Interrupted(Interrupted.SIGINT, "stopped")
        return real(specs, *args, **kwargs)

    out = tmp_path / "out"
    monkeypatch.setattr(tuning, "execute", stopped_in_the_second_batch)
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out), *STUDY)
    assert proc.returncode == 130
    assert "aqmlab: interrupted: 2 of 4 trials are done in" in proc.stderr
    assert "run the same command again to resume" in proc.stderr
    assert not (out / "trials.csv").exists()
    monkeypatch.setattr(tuning, "execute", real)
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out), *STUDY)
    assert proc.returncode == 0, proc.stderr
    for name in ("trials.csv", "pareto.csv", "rerun.csv"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


@needs_optuna
def test_more_trials_extend_the_study(reference, tiny, tmp_path):
    out = tmp_path / "out"
    first = ["--trials", "2", *STUDY[2:]]
    assert cli("tune", "betared", "--on", str(tiny), "--out", str(out), *first).returncode == 0
    assert len((out / "trials.csv").read_text(encoding="utf-8").splitlines()) == 3
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out), *STUDY)
    assert proc.returncode == 0, proc.stderr
    assert (out / "trials.csv").read_bytes() == (reference / "trials.csv").read_bytes()


@needs_optuna
def test_a_folder_of_another_study_is_refused(reference, tiny, tmp_path):
    out = tmp_path / "out"
    assert cli("tune", "betared", "--on", str(tiny), "--out", str(out), *STUDY).returncode == 0
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    before = (out / "trials.csv").read_bytes()
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out), "--seed", "2", *STUDY)
    assert_usage_error(proc, "holds another tuning study", "seed 1, this command seed 2")
    assert (out / "trials.csv").read_bytes() == before
    proc = cli("tune", "codel", "--on", str(tiny), "--out", str(out), *STUDY)
    assert_usage_error(proc, "it has aqm betared, this command aqm codel", "--overwrite")
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(out), "--seed", "2",
               "--overwrite", *STUDY)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert '"seed": 2' in (out / "study.json").read_text(encoding="utf-8")
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    # a folder aqmlab did not write is refused as by every command
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "data.csv").write_text("x", encoding="utf-8")
    proc = cli("tune", "betared", "--on", str(tiny), "--out", str(foreign), *STUDY)
    assert_usage_error(proc, "holds no aqmlab result")
