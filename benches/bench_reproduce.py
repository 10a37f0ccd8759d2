"""Time `aqmlab reproduce PAPER` and the RFC 7928 suite from empty output folders, and write
the "Reproduction" section of BENCHMARKS.md (`make bench-reproduce`, `benches/bench.py
--reproduce`)."""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

from bench_sections import REPO_ROOT, REPRODUCTION_HEADING, read_section, rewrite_page

REPRODUCTION_MODES = {"quick": ["--quick"], "full": []}
"""The extra arguments of each mode."""

COMMANDS = {
    "betared": ["reproduce", "betared"],
    "li2014": ["reproduce", "li2014"],
    "chen2011": ["reproduce", "chen2011"],
    "rfc7928": ["evaluate", "red", "pie", "fq_codel"],
}
"""The commands `--reproduce` times, in the order of the table: the three reproductions and
the RFC 7928 suite (`aqmlab evaluate`, with drop tail as its baseline: four AQMs)."""
PAPERS = tuple(COMMANDS)


def time_reproduction(paper: str, mode: str) -> dict:
    """Wall time of `aqmlab reproduce PAPER` (or `aqmlab evaluate ...`, COMMANDS) from an
    empty output folder, which is kept afterwards (results/bench/<command>-PAPER[-quick]) so
    its report can be read."""
    out = (
        REPO_ROOT
        / "results"
        / "bench"
        / (f"{COMMANDS[paper][0]}-{paper}" + ("-quick" if mode == "quick" else ""))
    )
    shutil.rmtree(out, ignore_errors=True)
    cmd = [
        sys.executable,
        "-m",
        "aqmlab.cli",
        *COMMANDS[paper],
        *REPRODUCTION_MODES[mode],
        "--out",
        str(out),
        "--quiet",
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT)
    wall_s = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"{' '.join(COMMANDS[paper])} {mode} failed (exit {proc.returncode})")
    line = next((x for x in proc.stdout.splitlines() if " runs: " in x), "? runs:")
    cpu = re.search(r"([0-9.]+) s CPU", line)
    return {
        "wall_s": wall_s,
        "runs": line.split()[0],
        "cpu_s": float(cpu.group(1)) if cpu else float("nan"),
        "load": os.getloadavg()[1],
    }


def _command(paper: str, mode: str) -> str:
    return f"`aqmlab {' '.join(COMMANDS[paper])}" + (" --quick`" if mode == "quick" else "`")


def reproduction_section(results: dict[tuple[str, str], dict], old: str | None) -> str:
    """The Reproduction section: one row per mode; rows not measured now are kept."""
    rows = {}
    if old:
        for line in old.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| `aqmlab") and len(cells) >= 2:
                rows[cells[0]] = line
    today = datetime.date.today().isoformat()
    for (paper, mode), r in results.items():
        command = _command(paper, mode)
        rows[command] = (
            f"| {command} | {r['runs']} | {r['wall_s']:.0f} s ({r['wall_s'] / 60:.1f} min) | "
            f"{r['cpu_s']:.0f} s | {os.cpu_count()} | {r['load']:.1f} | {today} |"
        )
    order = [_command(paper, mode) for paper in PAPERS for mode in ("quick", "full")]
    method = (
        "Recorded by `make bench-reproduce` (`benches/bench.py --reproduce`): the wall time of "
        "the whole command (interpreter start-up, all simulations on one worker process per "
        "core, tables, figures and report.md) into an empty output folder, so no run is "
        "reused; the folders are kept as `results/bench/<command>-<paper>[-quick]/`. Runs "
        "counts distinct simulations (figures or tables share some); the CPU time is their "
        "sum over the workers. The machine is the one described at the top of this page; "
        "other work running on it at the same time (see the load average: 2 means both cores busy) "
        "lengthens the wall time, not the CPU time, so wall time ≈ CPU time / cores is what an "
        "idle machine gives. A row whose command carries a description was recorded by hand "
        "and is kept as it is."
    )
    lines = [
        REPRODUCTION_HEADING,
        "",
        "| command | runs | wall time | CPU time of the simulations | worker processes | "
        "load average (5 min) at the end | date |",
        "|---|---:|---:|---:|---:|---:|---|",
        *[rows[k] for k in order if k in rows],
        *[row for k, row in rows.items() if k not in order],
        "",
        textwrap.fill(method, width=100),
    ]
    return "\n".join(lines)


def main_reproduce(which: str, paper: str) -> int:
    modes = ["quick", "full"] if which == "both" else [which]
    papers = list(PAPERS) if paper == "all" else [paper]
    results = {}
    for name in papers:
        for mode in modes:
            results[(name, mode)] = r = time_reproduction(name, mode)
            print(f"reproduce {name} {mode}: {r['wall_s']:.0f} s", file=sys.stderr)
    old = read_section(REPRODUCTION_HEADING)
    rewrite_page(sections={REPRODUCTION_HEADING: reproduction_section(results, old)})
    return 0
