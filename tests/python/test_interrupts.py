"""Ctrl-C and SIGTERM stop every long computation of the core within a second or so (here: well
before the computation would end), with exit status 130 or 143 and nothing half-written; work
sizes above their documented bounds are refused before any work."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO_ROOT, SCENARIO1, assert_usage_error, run_cli

LONG_BIFURCATION = ["model", "bifurcation", "--drop", "betared", "--points", "1000"]
LONG_BIFURCATION += ["--iterations", "2000000", "--threads", "2"]
"""About 2·10⁹ iterations of the BetaRED map: minutes of work on two cores."""

LONG_MAP = ["model", "stability-map", "--drop", "betared", "--x-points", "100", "--y-points"]
LONG_MAP += ["100", "--iterations", "200000", "--threads", "2"]

LONG_RUN = ["run", str(SCENARIO1), "--set", "traffic.schedule.flows=400"]
LONG_RUN += ["--set", "duration_s=100000", "--set", "measure.sample_interval_ms=1000"]
"""A run of a day of simulated time: far longer than the test waits."""

STOPPED_WITHIN_S = 20.0
"""How long a stopped command may take to end; each computation above runs for minutes."""


def _start(args: list[str], out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "aqmlab.cli", *args, "--out", str(out)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell that started the test suite in the background ignores SIGINT, and the
        # child would inherit that; give it the default disposition, as in a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _stop(proc: subprocess.Popen, signum: int, started: float) -> tuple[int, str, float]:
    """Wait until the command has been working for a while, signal it, and return its exit
    status, its stderr and the seconds it took to end."""
    time.sleep(max(0.0, started + 3.0 - time.monotonic()))
    assert proc.poll() is None, proc.communicate()[1]
    t0 = time.monotonic()
    proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=STOPPED_WITHIN_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"signal {signum} did not stop the command within {STOPPED_WITHIN_S} s")
    return proc.returncode, err, time.monotonic() - t0


@pytest.mark.parametrize(
    ("args", "signum"),
    [
        (LONG_BIFURCATION, signal.SIGINT),
        (LONG_BIFURCATION, signal.SIGTERM),
        (LONG_MAP, signal.SIGINT),
        (LONG_RUN, signal.SIGTERM),
        (LONG_RUN, signal.SIGINT),
    ],
    ids=["bifurcation-int", "bifurcation-term", "map-int", "run-term", "run-int"],
)
def test_a_signal_stops_the_computation_and_writes_nothing(args, signum, tmp_path):
    out = tmp_path / "out"
    proc = _start(args, out)
    status, err, _ = _stop(proc, signum, time.monotonic())
    assert status == 128 + signum, err
    assert err.rstrip("\n").endswith("aqmlab: interrupted"), err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no folder, no temporary one


def test_an_earlier_result_is_intact_after_a_stopped_overwrite(tmp_path):
    out = tmp_path / "out"
    first = run_cli("model", "bifurcation", "--points", "5", "--out", str(out))
    assert first.returncode == 0, first.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    proc = _start([*LONG_BIFURCATION, "--overwrite"], out)
    status, err, _ = _stop(proc, signal.SIGINT, time.monotonic())
    assert status == 130, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["model", "bifurcation", "--points", "2", "--iterations", "100000000000"], "iterations"),
        (["model", "lyapunov", "--points", "20000", "--iterations", "1000000"], "iterations"),
        (
            [
                "model",
                "stability-map",
                "--x-points",
                "1000",
                "--y-points",
                "1000",
                "--iterations",
                "20000",
            ],
            "iterations",
        ),
    ],
)
def test_work_above_the_bound_is_refused_at_once(args, fragment, tmp_path):
    proc = run_cli(*args, "--out", str(tmp_path / "out"))
    assert_usage_error(proc, fragment, "10000000000")
    assert not (tmp_path / "out").exists()
