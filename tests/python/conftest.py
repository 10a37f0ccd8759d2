"""Shared fixtures: a small scenario (RED, 10 flows, 5 s) and a helper that runs the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aqmlab import Scenario, run

REPO_ROOT = Path(__file__).resolve().parents[2]
SCENARIO1 = REPO_ROOT / "experiments" / "betared" / "scenario1.toml"
TRIANGLE = REPO_ROOT / "experiments" / "examples" / "triangle.toml"
"""A network A - B - C with a direct, slower A - C that the traffic (A to C) takes: A->B and
B->C carry nothing (CoDel on A->C, RED over 200 packets elsewhere)."""
SMALL_OVERRIDES = {
    "queue.aqm": "red",
    "traffic.schedule.flows": 10,
    "duration_s": 5.0,
    "measure.window": [0.0, 5.0],
}


def run_cli(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    """Run `python -m aqmlab.cli ARGS` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_usage_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    """The CLI refused its input the promised way: exit status 2, one line on stderr starting
    `aqmlab: error:`, no traceback, and every fragment in that line."""
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("aqmlab: error:"), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr


def triangle(overrides: dict | None = None) -> Scenario:
    """The triangle network, 3 s long, with `overrides` (dotted keys) on top."""
    return Scenario.load(TRIANGLE).with_({"duration_s": 3.0, **(overrides or {})})


@pytest.fixture(scope="session")
def small_scenario() -> Scenario:
    return Scenario.load(SCENARIO1).with_(SMALL_OVERRIDES)


@pytest.fixture(scope="session")
def small_scenario_file(small_scenario: Scenario, tmp_path_factory) -> Path:
    """The small scenario, resolved, as a file named small.toml."""
    path = tmp_path_factory.mktemp("scenario") / "small.toml"
    path.write_text(small_scenario.resolved(), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def small_result(small_scenario: Scenario):
    return run(small_scenario)
