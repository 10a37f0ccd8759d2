"""The whole `aqmlab run` process, timed from spawning to exit, and its parts: the way to the
core, the core call and the rest, stamped inside one process (`make bench`, `make bench-ns3`)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_sections import REPO_ROOT


def spawn(command: list[str], path: Path, sets: list[list[str]], out_dir: Path) -> tuple:
    """Run `command run FILE --quiet --out DIR --overwrite --set ...` from spawning to exit:
    its CLOCK_MONOTONIC start, its wall time and its stderr; a failed run stops the bench."""
    args = [*command, "run", str(path), "--quiet", "--out", str(out_dir), "--overwrite"]
    for key, value in sets:
        args += ["--set", f"{key}={value}"]
    t0 = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=REPO_ROOT)
    wall_s = time.monotonic() - t0
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"aqmlab run failed: {path.name} {sets}")
    return t0, wall_s, proc.stderr


def whole_run(path: Path, sets: list[list[str]], out_dir: Path) -> float:
    """Wall time of one `aqmlab run FILE --set ... --quiet` process of the installed command,
    start to exit: interpreter start-up, imports, the simulation and writing the output files."""
    return spawn([str(Path(sys.executable).with_name("aqmlab"))], path, sets, out_dir)[1]


# Runs the `aqmlab` command line in a fresh interpreter as the installed command does (import
# `main`, call it, exit with its status) and prints the CLOCK_MONOTONIC times at which its call
# of the core's run_scenario starts and returns (a clock shared by every process of the machine).
STAMPED_CLI = r"""
import sys, time
from aqmlab import _core
real = _core.run_scenario
def timed(*args, **kwargs):
    start = time.monotonic()
    out = real(*args, **kwargs)
    print(f"core from {start!r} to {time.monotonic()!r}", file=sys.stderr, flush=True)
    return out
_core.run_scenario = timed
from aqmlab.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def stamped_run(path: Path, sets: list[list[str]], out_dir: Path) -> dict[str, float]:
    """One `aqmlab run FILE --set ... --quiet` process with its core call stamped: the core
    call, the way to it (interpreter start-up, imports, the scenario read and resolved) and the
    rest of the process (that way and the output files after the call)."""
    t0, process_s, stderr = spawn([sys.executable, "-c", STAMPED_CLI], path, sets, out_dir)
    stamps = [line.split() for line in stderr.splitlines() if line.startswith("core from")]
    if not stamps:
        sys.stderr.write(stderr)
        raise SystemExit(f"aqmlab run did not reach the core: {path.name} {sets}")
    start, end = float(stamps[0][2]), float(stamps[0][4])
    return {"core_s": end - start, "to_core_s": start - t0, "rest_s": process_s - (end - start)}


def stamped_runs(
    path: Path, sets: list[list[str]], out_dir: Path, repeats: int
) -> dict[str, float]:
    """Medians over `repeats` `stamped_run`s: each part of the process is measured in the same
    process, so the parts add up run by run whatever the machine's drift."""
    runs = [stamped_run(path, sets, out_dir) for _ in range(repeats)]
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def whole_and_parts(
    path: Path, sets: list[list[str]], out_dir: Path, repeats: int
) -> dict[str, float]:
    """The median of `repeats` `whole_run`s of the installed command (`process_s`), and the
    medians of the parts of `stamped_runs` (the stamped interpreter runs a few milliseconds
    longer)."""
    parts = stamped_runs(path, sets, out_dir, repeats)
    whole = statistics.median(whole_run(path, sets, out_dir) for _ in range(repeats))
    return {**parts, "process_s": whole}
