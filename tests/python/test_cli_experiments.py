"""The `sweep`, `reproduce` and `curves` commands: outputs, resume, and one-line errors with
exit status 2 that leave nothing behind."""

from __future__ import annotations

import pytest

from aqmlab import _core
from conftest import SCENARIO1, assert_usage_error, run_cli

TINY = f"""
title = "tiny"
scenario = "{SCENARIO1.as_posix()}"
[fixed]
"queue.aqm" = "red"
duration_s = 3.0
"measure.window" = [0.0, 3.0]
[[axes]]
name = "N"
key = "traffic.schedule.flows"
values = [5, 10]
[plot]
x = "N"
y = ["avg_queue_pkts", "throughput_mbps"]
"""

HAS_STEPPER = hasattr(_core, "AqmStepper") and "betared" in _core.catalog()["aqms"]


def test_sweep_writes_table_figure_and_resumes(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    out = tmp_path / "out"
    proc = run_cli("sweep", str(path), "--out", str(out), "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    assert "2 runs: 2 simulated, 0 reused" in proc.stdout
    assert "average queue length (packets)" in proc.stdout
    for name in ("results.parquet", "results.csv", "tiny.png", "tiny.svg"):
        assert (out / name).is_file(), name
    again = run_cli("sweep", str(path), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "2 runs: 0 simulated, 2 reused" in again.stdout


def test_sweep_default_out_dir(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY + "\n[quick]\nseeds = [1]\n", encoding="utf-8")
    proc = run_cli("sweep", str(path), "--quick", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "results" / "tiny-quick" / "results.csv").is_file()


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("title = = 1", ["TOML syntax error", "line 1, column 9"]),
        (TINY.replace('title = "tiny"', 'titel = "tiny"'), ["unknown key 'titel'"]),
        (TINY.replace("values = [5, 10]", "values = [5, -1]"), ["N=-1", "traffic.schedule"]),
        (TINY.replace('"queue.aqm" = "red"', '"queue.aqm" = "nope"'), ["queue.aqm"]),
        (TINY.replace('x = "N"', 'x = "M"'), ["plot.x"]),
    ],
)
def test_sweep_bad_file_is_one_line_exit_2(tmp_path, text, fragments):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert_usage_error(run_cli("sweep", str(path), "--out", str(out)), *fragments)
    assert not out.exists()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["sweep", "missing.toml"], "missing.toml"),
        (["sweep", "x.toml", "--jobs", "0"], "job count"),
        (["reproduce", "nosuchpaper"], "unknown paper"),
        (["reproduce", "betared", "--figures", "2"], "no figure 2"),
        (["reproduce", "betared", "--figures", "three"], "--figures"),
        (["reproduce", "betared", "--jobs", "x"], "job count"),
        (["curves", "--theta", "abc"], "invalid list"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(tmp_path, args, fragment):
    proc = run_cli(*args, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert_usage_error(proc, fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not HAS_STEPPER, reason="this build has no BetaRED stepper")
def test_curves_written(tmp_path):
    proc = run_cli("curves", "--theta", "0.05,0.3", "--out", str(tmp_path / "c"))
    assert proc.returncode == 0, proc.stderr
    for name in ("curves.png", "curves.svg", "curves.csv"):
        assert (tmp_path / "c" / name).is_file()
    assert "BetaRED θ=0.05" in proc.stdout and "RED" in proc.stdout


@pytest.mark.skipif(not HAS_STEPPER, reason="this build has no BetaRED stepper")
def test_curves_bad_theta_exit_2(tmp_path):
    proc = run_cli("curves", "--theta", "1.5", "--out", str(tmp_path / "c"))
    assert_usage_error(proc, "theta")
    assert not (tmp_path / "c").exists()


@pytest.mark.skipif(not HAS_STEPPER, reason="this build has no BetaRED stepper")
def test_aqm_wrapper_drop_curve_concentrates_around_target():
    from aqmlab.engine import aqm

    narrow = aqm.drop_curve("betared", [200.0, 250.0, 300.0], theta=0.05)
    wide = aqm.drop_curve("betared", [200.0, 250.0, 300.0], theta=0.5)
    assert 0.0 <= narrow[0] < wide[0] <= 1.0
    assert narrow[2] > wide[2]
    stepper = aqm.make("betared", theta=0.1)
    assert stepper.enqueue(0.0, 0) == "accept"
    assert "q_avg" in stepper.state


def test_list_separates_experiment_files():
    proc = run_cli("list")
    assert proc.returncode == 0, proc.stderr
    scenarios, _, experiments = proc.stdout.partition("built-in experiments")
    assert "  betared/scenario1\n" in scenarios
    assert "  betared/fig8\n" in experiments
    assert "fig8" not in scenarios
