"""A sweep stopped by Ctrl-C, SIGTERM or `kill -9`: finished runs are stored, no worker
outlives the sweep, and running the same command again resumes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO_ROOT, SCENARIO1

RUNS = 16
EXPERIMENT = f"""
title = "signals"
scenario = "{SCENARIO1.as_posix()}"
seeds = [1, 2]

[fixed]
"queue.aqm" = "red"
duration_s = 120.0
"measure.window" = "all"

[[axes]]
name = "N"
key = "traffic.schedule.flows"
values = [5, 10, 15, 20, 25, 30, 35, 40]

[plot]
x = "N"
"""


def _experiment(tmp_path: Path) -> Path:
    path = tmp_path / "signals.toml"
    path.write_text(textwrap.dedent(EXPERIMENT), encoding="utf-8")
    return path


def _start(path: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "aqmlab.cli", "sweep", str(path), "--out", str(out), "--jobs", "2"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell that started the test suite in the background ignores SIGINT, and the
        # child would inherit that; give it the default disposition, as in a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _records(out: Path) -> list[Path]:
    return sorted((out / "runs").glob("*.json"))


def _wait_for_first_record(out: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _records(out):
        time.sleep(0.02)
    assert _records(out), "no run finished within 60 s"


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state, ppid, ...), or None."""
    try:
        return Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def _children(pid: int) -> set[int]:
    """The PIDs of the live processes whose parent is `pid` (Linux /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields and fields[1] == str(pid) and fields[0] != "Z":
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def _check_stored(out: Path) -> int:
    records = _records(out)
    assert 1 <= len(records) < RUNS
    for p in records:
        assert json.loads(p.read_text(encoding="utf-8"))["summary"]["avg_queue_pkts"] >= 0
    assert not (out / "results.parquet").exists()
    return len(records)


def _resume_completes(path: Path, out: Path, stored: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", "sweep", str(path), "--out", str(out), "--quiet"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"{RUNS - stored} simulated, {stored} reused" in proc.stdout
    assert len(_records(out)) == RUNS
    assert not [p for p in (out / "runs").iterdir() if ".tmp-" in p.name]


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs Linux /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_stores_finished_runs_and_says_how_to_resume(tmp_path, signum):
    path, out = _experiment(tmp_path), tmp_path / "out"
    proc = _start(path, out)
    _wait_for_first_record(out)
    workers = _children(proc.pid)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    stored = _check_stored(out)
    assert last == (
        f"aqmlab: interrupted: {stored} of {RUNS} runs are stored in {out}; "
        "run the same command again to resume"
    )
    assert workers and not any(_alive(w) for w in workers)
    _resume_completes(path, out, stored)


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs Linux /proc")
def test_workers_end_when_the_sweep_is_killed(tmp_path):
    path, out = _experiment(tmp_path), tmp_path / "out"
    proc = _start(path, out)
    _wait_for_first_record(out)
    workers = _children(proc.pid)
    assert len(workers) >= 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "a worker outlived its sweep"
    stored = _check_stored(out)
    _resume_completes(path, out, stored)
