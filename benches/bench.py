"""Time BetaRED scenario 2 in fresh processes and record the numbers in BENCHMARKS.md.

Usage (from the repository root, after `make build`):
  python benches/bench.py                       scenario 2 speed and memory, model speed
  python benches/bench.py --reproduce [quick|full|both] [--paper NAME|all]
                                                `aqmlab reproduce PAPER` wall time (NAME:
                                                betared, li2014, chen2011; rfc7928: the
                                                RFC 7928 suite, `aqmlab evaluate`)
Each mode rewrites its own part of BENCHMARKS.md and keeps the other's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from bench_process import whole_and_parts
from bench_reproduce import PAPERS, main_reproduce
from bench_sections import REPO_ROOT, rewrite_page

SCENARIO = REPO_ROOT / "experiments" / "betared" / "scenario2.toml"
LI2014 = REPO_ROOT / "experiments" / "li2014"
# Networks beyond the dumbbell and traffic beyond bulk TCP: (label, file, overrides).
NETWORK_CASES = (
    (
        "Li 2014 two bottlenecks (Tables 17-18: N = 100, N1 = 800, N2 = 400), ARED at B and D",
        LI2014 / "table17_18_two_bottlenecks.toml",
        [["queue.aqm", "ared"]],
    ),
    (
        "800 TCP + 400 exponential ON/OFF UDP flows (Li 2014 Table 14), ARED",
        LI2014 / "table14_tcp_with_udp_onoff.toml",
        [["queue.aqm", "ared"]],
    ),
)
# A 20 s run of 100 long-lived flows: BetaRED scenario 1 (drop tail) shortened.
SHORT_RUN = (
    REPO_ROOT / "experiments" / "betared" / "scenario1.toml",
    [["traffic.schedule.flows", "100"], ["duration_s", "20"]],
)
REPEATS = 3
# The project's speed goals for the whole `aqmlab run` process on this machine (s): scenario 2
# with drop tail, with any other AQM, the short run, and the way to the core.
GOAL_DROPTAIL_S = 0.3
GOAL_OTHER_AQM_S = 0.4
GOAL_SHORT_S = 0.1
GOAL_TO_CORE_S = 0.060
N_MAX_TIMED = 800
N_MAX_MEMORY = (200, 800, 1600, 4000, 10000)
# The large case: 10 000 CUBIC flows through a 1 Gb/s bottleneck for 60 s (scenario 1, drop
# tail, its 1000-packet buffers and 100 Mb/s access links).
LARGE_CASE = (
    REPO_ROOT / "experiments" / "betared" / "scenario1.toml",
    [
        ["topology.bottleneck_rate_mbps", "1000"],
        ["traffic.schedule.flows", "10000"],
        ["duration_s", "60"],
    ],
)
# Every AQM, with T_target = 40 ms where the AQM has a target (as in the paper's Fig. 8).
AQM_SETS = {
    "droptail": [],
    "red": [],
    "ared": [["queue.ared.target_delay_ms", "40"]],
    "betared": [],
    "abetared": [],
    "dbetared": [],
    "codel": [["queue.codel.target_ms", "40"]],
    "pie": [["queue.pie.target_ms", "40"]],
    # The deployed AQMs at their defaults (target 5 ms): the flow-queueing disciplines' cost
    # against drop tail's on the same traffic.
    "cobalt": [],
    "fq_codel": [],
    "fq_pie": [],
    "fq_cobalt": [],
    "cake": [],
}
# Congestion controls timed on scenario 2 through drop tail, against CUBIC (the scenario's own):
# the rate-based, paced ones (BBR, Prague), DCTCP, and CUBIC paced as ns-3 paces (one wake-up
# per segment), which tells what pacing alone costs. Label: (tcp.cc, further overrides).
CC_CASES = {
    "cubic": ("cubic", []),
    "bbr": ("bbr", []),
    "prague": ("prague", []),
    "dctcp": ("dctcp", []),
    "cubic paced": ("cubic", [["tcp.pacing", "true"]]),
}
# Rounds of the congestion-control table: each runs every case once, forwards and backwards in
# turn, so that the machine's drift over the table touches every case alike.
CC_ROUNDS = 7
# The engine alone, for instruction counts (`make bench` builds it).
PROFILE_RUN = REPO_ROOT / "target" / "release" / "examples" / "profile_run"
# Model bifurcation sweeps: (label, parameter, from, to, overrides), 1000 values x 10^4 steps.
MODEL_SWEEPS = (
    ("gentle RED over w (self-tuning-RED Fig. 4)", "w", 0.12, 0.2, {}),
    ("BetaRED (θ = 0.1) over w", "w", 0.01, 0.2, {"drop": "betared", "theta": 0.1}),
    ("BetaRED over θ (w = 0.05)", "theta", 0.02, 0.9, {"drop": "betared", "w": 0.05}),
)

# Runs in a fresh interpreter. It loads the extension module without importing the aqmlab
# package (pandas, pyarrow), so the peak RSS is the simulator's plus a bare interpreter's.
CHILD = r"""
import importlib.machinery, importlib.util, json, resource, sys, time
pkg_dirs = importlib.util.find_spec("aqmlab").submodule_search_locations
finder = importlib.machinery.FileFinder(
    pkg_dirs[0],
    (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
)
spec = finder.find_spec("aqmlab._core")
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)
with open(sys.argv[1], encoding="utf-8") as f:
    text = f.read()
sets = [tuple(pair) for pair in json.loads(sys.argv[2])]
base_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
out = core.run_scenario(text, sets, None, None)
wall_s = time.perf_counter() - t0
summary = out["summary"]
print(json.dumps({
    "wall_s": wall_s,
    "base_rss_kib": base_rss_kib,
    "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "events": summary["events"],
    "bottleneck_departures": summary["bottleneck_departures"],
    "link_transmissions": summary["link_transmissions"],
}))
"""


def run_file(path: Path, sets: list[list[str]]) -> dict:
    """One full run of the scenario file `path` with `sets` in a fresh subprocess."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), json.dumps(sets)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"bench run failed: {path.name} {sets}")
    return json.loads(proc.stdout.splitlines()[-1])


def run_once(aqm: str, n_max: int) -> dict:
    """One full run of scenario 2 in a fresh subprocess."""
    sets = [["queue.aqm", aqm], ["traffic.schedule.n_max", str(n_max)], *AQM_SETS[aqm]]
    return run_file(SCENARIO, sets)


def timed_ccs() -> dict[str, dict]:
    """Every congestion-control case over CC_ROUNDS rounds: medians of each case's runs, and
    `x_cubic`, the median of the rounds' ratios of its time to CUBIC's."""
    runs: dict[str, list[dict]] = {cc: [] for cc in CC_CASES}
    for i in range(CC_ROUNDS):
        for cc in list(CC_CASES) if i % 2 == 0 else reversed(CC_CASES):
            runs[cc].append(run_file(SCENARIO, cc_sets(cc)))
    ratios = {
        cc: statistics.median(r["wall_s"] / c["wall_s"] for r, c in zip(rs, runs["cubic"]))
        for cc, rs in runs.items()
    }
    return {cc: medians(rs) | {"x_cubic": ratios[cc]} for cc, rs in runs.items()}


def timed(aqm: str, n_max: int) -> dict:
    """Medians over REPEATS runs of scenario 2's wall time, rates and peak RSS."""
    return medians([run_once(aqm, n_max) for _ in range(REPEATS)])


def instructions(sets: list[list[str]]) -> int | None:
    """The instructions one run of scenario 2 with `sets` executes in the engine alone
    (`profile_run`: the scenario read, the network built, the run, the tables), counted by
    valgrind's cachegrind: nearly the same on every run, unlike the wall time. None without
    valgrind or the example binary."""
    valgrind = shutil.which("valgrind")
    if valgrind is None or not PROFILE_RUN.exists():
        return None
    args = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    args += [str(PROFILE_RUN), str(SCENARIO), "1", *(f"{key}={value}" for key, value in sets)]
    proc = subprocess.run(args, capture_output=True, text=True, cwd=REPO_ROOT)
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"cachegrind run failed: {sets}")
    return int(found.group(1).replace(",", ""))


def aqm_sets(aqm: str) -> list[list[str]]:
    """Scenario 2's overrides for `aqm` at N_max = N_MAX_TIMED."""
    return [["queue.aqm", aqm], ["traffic.schedule.n_max", str(N_MAX_TIMED)], *AQM_SETS[aqm]]


def cc_sets(case: str) -> list[list[str]]:
    """Scenario 2's overrides for the congestion-control case `case` (CC_CASES) through drop
    tail."""
    cc, more = CC_CASES[case]
    return [*aqm_sets("droptail"), ["tcp.cc", f'"{cc}"'], *more]


def cc_label(case: str) -> str:
    """The overrides of congestion-control case `case` as a table's row label."""
    cc, more = CC_CASES[case]
    return ", ".join(f"`{key} = {value}`" for key, value in [["tcp.cc", cc], *more])


def medians(runs: list[dict]) -> dict:
    """Medians over runs of wall time, rates and peak RSS."""
    return {
        "wall_s": statistics.median(r["wall_s"] for r in runs),
        "events_per_s": statistics.median(r["events"] / r["wall_s"] for r in runs),
        "pkts_per_s": statistics.median(r["bottleneck_departures"] / r["wall_s"] for r in runs),
        "peak_rss_mib": statistics.median(r["peak_rss_kib"] for r in runs) / 1024,
        "base_rss_mib": statistics.median(r["base_rss_kib"] for r in runs) / 1024,
        "events": runs[0]["events"],
        "bottleneck_departures": runs[0]["bottleneck_departures"],
        "link_transmissions": runs[0]["link_transmissions"],
    }


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def ram_gib() -> str:
    """Total memory from /proc/meminfo, in GiB."""
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def rustc_version() -> str:
    """`rustc --version` from PATH or ~/.cargo/bin."""
    rustc = shutil.which("rustc") or str(Path.home() / ".cargo" / "bin" / "rustc")
    try:
        return subprocess.run(
            [rustc, "--version"], check=True, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def aqmlab_version() -> str:
    """The version reported by the extension module."""
    code = "import aqmlab; print(aqmlab.__version__)"
    proc = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return proc.stdout.strip()


def time_whole_runs(out_dir: Path) -> dict:
    """`whole_and_parts` of scenario 2 for every AQM and of the 20 s, 100-flow run (key
    `short`)."""
    out = {}
    for aqm in AQM_SETS:
        sets = [["queue.aqm", aqm], ["traffic.schedule.n_max", str(N_MAX_TIMED)], *AQM_SETS[aqm]]
        out[aqm] = whole_and_parts(SCENARIO, sets, out_dir, REPEATS)
        print(f"aqmlab run {aqm}: {out[aqm]['process_s']:.3f} s", file=sys.stderr)
    out["short"] = whole_and_parts(*SHORT_RUN, out_dir, REPEATS)
    to_core_ms = out["droptail"]["to_core_s"] * 1e3
    print(f"aqmlab run reaches the core: {to_core_ms:.0f} ms", file=sys.stderr)
    return out


def time_model() -> dict[str, dict]:
    """Wall time of 1000-value bifurcation sweeps of the discrete-time model, one thread."""
    import numpy as np

    from aqmlab import model

    out = {}
    for label, param, lo, hi, overrides in MODEL_SWEEPS:
        values = np.linspace(lo, hi, 1000)
        for early_exit in (False, True):
            t0 = time.perf_counter()
            model.bifurcation(
                param, values, overrides, iterations=10_000, early_exit=early_exit, threads=1
            )
            out.setdefault(label, {})[early_exit] = time.perf_counter() - t0
        print(f"model {label}: {out[label][False]:.2f} s", file=sys.stderr)
    return out


def goal(value: float, goal_value: float, unit: str) -> str:
    """A goal cell: the bound and whether `value` meets it."""
    return f"≤ {goal_value:g} {unit}: {'met' if value <= goal_value else 'not met'}"


def report(
    speed: dict[str, dict],
    ccs: dict[str, dict],
    whole: dict,
    networks: dict[str, dict],
    memory: dict[int, dict],
    large: dict,
    model_s: dict[str, dict],
    counts: dict[str, int | None],
) -> str:
    """BENCHMARKS.md as text."""
    lines = [
        "# Benchmarks",
        "",
        "Recorded by `make bench` (`benches/bench.py`).",
        "",
        f"- CPU: {cpu_model()}",
        f"- cores: {os.cpu_count()}",
        f"- RAM: {ram_gib()}",
        f"- rustc: {rustc_version()}",
        f"- Python: {platform.python_version()}",
        f"- aqmlab: {aqmlab_version()}",
        f"- date: {datetime.date.today().isoformat()}",
        "",
        f"## BetaRED scenario 2, N_max = {N_MAX_TIMED}, 250 s simulated",
        "",
        "| AQM | wall time (s) | events | events/s | bottleneck packets | "
        "bottleneck packets/s | peak RSS (MiB) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for aqm, r in speed.items():
        lines.append(
            f"| {aqm} | {r['wall_s']:.3f} | {r['events']:,} | {r['events_per_s']:,.0f} | "
            f"{r['bottleneck_departures']:,} | {r['pkts_per_s']:,.0f} | {r['peak_rss_mib']:.1f} |"
        )
    lines += [
        "",
        f"## Congestion controls, scenario 2 through drop tail, N_max = {N_MAX_TIMED}",
        "",
        f"Each case runs once per round, {CC_ROUNDS} rounds in alternating order: the wall time "
        "is the median of its runs, × CUBIC's the median of the rounds' ratios of its time to "
        "CUBIC's in the same round.",
        "",
        "| overrides | wall time (s) | × CUBIC's | events | events/s | bottleneck packets |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for cc, r in ccs.items():
        lines.append(
            f"| {cc_label(cc)} | {r['wall_s']:.3f} | {r['x_cubic']:.2f} | "
            f"{r['events']:,} | {r['events_per_s']:,.0f} | {r['bottleneck_departures']:,} |"
        )
    lines += instruction_section(speed, ccs, counts)
    lines += [
        "",
        f"## The whole `aqmlab run` command, scenario 2, N_max = {N_MAX_TIMED}",
        "",
        "| AQM | `aqmlab run` process (s) | in the core (s) | the rest: start-up, imports, "
        "output files (s) | goal for the process |",
        "|---|---:|---:|---:|---|",
    ]
    for label, key, goal_s in [
        *((aqm, aqm, GOAL_DROPTAIL_S if aqm == "droptail" else GOAL_OTHER_AQM_S) for aqm in speed),
        ("drop tail, 100 flows for 20 s (scenario 1)", "short", GOAL_SHORT_S),
    ]:
        r = whole[key]
        lines.append(
            f"| {label} | {r['process_s']:.3f} | {r['core_s']:.3f} | {r['rest_s']:.3f} | "
            f"{goal(r['process_s'], goal_s, 's')} |"
        )
    to_core_ms = whole["droptail"]["to_core_s"] * 1e3
    lines += [
        "",
        "From spawning the process to its call of the core (interpreter, imports, the scenario "
        f"read and resolved), drop tail's runs above, median of {REPEATS}: {to_core_ms:.0f} ms "
        f"(goal: {goal(to_core_ms, GOAL_TO_CORE_S * 1e3, 'ms')}). Each figure is one median on "
        "one day; the machine's speed drifts by a tenth to a half from hour to hour, so a figure "
        "near its goal can fall either side of it on the next run.",
        "",
        "## Networks and traffic sources, 100 s simulated",
        "",
        "| case | wall time (s) | events | events/s | first-bottleneck packets | "
        "first-bottleneck packets/s | peak RSS (MiB) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, r in networks.items():
        lines.append(
            f"| {label} | {r['wall_s']:.3f} | {r['events']:,} | {r['events_per_s']:,.0f} | "
            f"{r['bottleneck_departures']:,} | {r['pkts_per_s']:,.0f} | {r['peak_rss_mib']:.1f} |"
        )
    lines += [
        "",
        "## Memory against the number of flows (drop tail)",
        "",
        "| N_max | wall time (s) | peak RSS (MiB) |",
        "|---:|---:|---:|",
    ]
    for n_max, r in memory.items():
        lines.append(f"| {n_max} | {r['wall_s']:.3f} | {r['peak_rss_mib']:.1f} |")
    lines += [
        "",
        "## A large case: 10 000 CUBIC flows through a 1 Gb/s bottleneck, 60 s simulated",
        "",
        "Scenario 1 (drop tail, 1000-packet buffers, 100 Mb/s access links) with "
        "`topology.bottleneck_rate_mbps = 1000`, `traffic.schedule.flows = 10000`, "
        f"`duration_s = 60`; median of {REPEATS}. Link transmissions count every packet put "
        "on any link (every hop, ACKs included).",
        "",
        "| wall time (s) | events | events/s | bottleneck packets | bottleneck packets/s | "
        "link transmissions | link transmissions/s | peak RSS (MiB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {large['wall_s']:.2f} | {large['events']:,} | {large['events'] / large['wall_s']:,.0f} "
        f"| {large['bottleneck_departures']:,} | "
        f"{large['bottleneck_departures'] / large['wall_s']:,.0f} | "
        f"{large['link_transmissions']:,} | {large['link_transmissions'] / large['wall_s']:,.0f} "
        f"| {large['peak_rss_mib']:.1f} |",
    ]
    lines += [
        "",
        "## Discrete-time model: 1000-value bifurcation sweeps, 10⁴ iterations each, one thread",
        "",
        "| sweep | every iteration evaluated (s) | with early exit on a settled cycle (s) |",
        "|---|---:|---:|",
    ]
    for label, r in model_s.items():
        lines.append(f"| {label} | {r[False]:.2f} | {r[True]:.2f} |")
    base_rss_mib = next(iter(speed.values()))["base_rss_mib"]
    method = (
        "Each run is a fresh Python process that loads only the extension module (as `make "
        "build` makes it: profile-guided, docs/architecture.md), reads "
        "`experiments/betared/scenario2.toml` with `traffic.schedule.n_max` and `queue.aqm` "
        "overridden, and calls `_core.run_scenario` once with no progress callback. The wall "
        "time is `time.perf_counter()` around that call: validating the scenario, building the "
        "network, simulating, computing the metrics and converting the tables to Python lists "
        "are included; interpreter start-up is not. Peak RSS is `ru_maxrss` of that process at "
        f"the end (before the run it is {base_rss_mib:.1f} MiB: interpreter plus extension). "
        "Events/s is the number of events the simulator processed divided by the wall time; "
        "bottleneck packets/s counts packets sent on the bottleneck link per wall second. Each "
        f"figure is the median of {REPEATS} runs; the memory probe runs once per N_max. "
        "Nothing is written to disk during the timed call. The network cases run their "
        "scenario files the same way (`experiments/li2014/table17_18_two_bottlenecks.toml`, "
        "`experiments/li2014/table14_tcp_with_udp_onoff.toml`, both with `queue.aqm=ared`); "
        "their packet counts are those of the first bottleneck port. AQMs with a target use 40 ms "
        "(the BetaRED paper's T_target), the others their scenario-file settings. The model "
        "sweeps call `aqmlab.model.bifurcation` in this process on one thread. The whole-"
        "command figures time `aqmlab run FILE --set ... --quiet --out DIR --overwrite` as a "
        f"subprocess from start to exit, with the same overrides, median of {REPEATS}. The "
        f"other two columns come from {REPEATS} more processes that run the command's `main` "
        "as the installed command does, with its call of the core stamped, so that each gives "
        "its time in the core (the call the first table times in a bare process) and the rest "
        "(start-up, imports, reading the scenario, writing the files) measured together; the "
        "columns need not add up, and the core column, measured minutes after the first "
        "table's, differs from it by as much as the machine drifts in between."
    )
    lines += ["", "## Method", "", textwrap.fill(method, width=100), ""]
    return "\n".join(lines)


def instruction_section(
    speed: dict[str, dict], ccs: dict[str, dict], counts: dict[str, int | None]
) -> list[str]:
    """The instructions table: every AQM and congestion control of the two tables above, in the
    engine alone (`counts`, keyed by AQM and by `cc:CASE`)."""
    lines = [
        "",
        f"## Instructions executed, scenario 2, N_max = {N_MAX_TIMED} (cachegrind)",
        "",
    ]
    if any(n is None for n in counts.values()):
        return [*lines, "Not measured: valgrind was not found."]
    lines += [
        "One run in the engine alone (`profile_run`), counted by `valgrind --tool=cachegrind`: "
        "the same to within 0.01 % from run to run (hash tables' random seeds) at any load of "
        "the machine, so changes to the engine can be compared across days when wall times "
        "drift. Fewer instructions need not mean less time (cache misses, mispredicted "
        "branches): with BBR the engine executes fewer instructions than with CUBIC and takes "
        "longer. Pacing (BBR, Prague, and CUBIC with `tcp.pacing = true`) wakes the sender once "
        "per segment, and a flow's packets then travel spread out instead of in pairs, so "
        "each touch of a flow's state, and of its hosts' ports, finds it out of the cache "
        'more often (docs/tcp.md, "What pacing costs").',
        "",
        "| case | instructions | per event | per bottleneck packet | × CUBIC's |",
        "|---|---:|---:|---:|---:|",
    ]
    cubic = counts["cc:cubic"]
    rows = [(f"`queue.aqm = {aqm}`", counts[aqm], r, None) for aqm, r in speed.items()]
    rows += [(cc_label(cc), counts[f"cc:{cc}"], r, cubic) for cc, r in ccs.items()]
    for label, n, r, base in rows:
        ratio = f"{n / base:.3f}" if base else ""
        lines.append(
            f"| {label} | {n:,} | {n / r['events']:,.0f} | "
            f"{n / r['bottleneck_departures']:,.0f} | {ratio} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reproduce",
        nargs="?",
        const="both",
        choices=["quick", "full", "both"],
        help="time `aqmlab reproduce PAPER` instead of the scenario benchmarks",
    )
    parser.add_argument(
        "--paper",
        choices=[*PAPERS, "all"],
        default="all",
        help="which reproduction (or rfc7928: the RFC 7928 suite, aqmlab evaluate) to time",
    )
    args = parser.parse_args()
    if args.reproduce:
        return main_reproduce(args.reproduce, args.paper)
    speed = {}
    for aqm in AQM_SETS:
        speed[aqm] = timed(aqm, N_MAX_TIMED)
        print(f"{aqm}: {speed[aqm]['wall_s']:.3f} s", file=sys.stderr)
    ccs = timed_ccs()
    for cc, r in ccs.items():
        print(f"{cc_label(cc)}: {r['wall_s']:.3f} s, {r['x_cubic']:.2f} x CUBIC's", file=sys.stderr)
    memory = {}
    for n_max in N_MAX_MEMORY:
        r = run_once("droptail", n_max)
        memory[n_max] = {"wall_s": r["wall_s"], "peak_rss_mib": r["peak_rss_kib"] / 1024}
        print(f"N_max={n_max}: {memory[n_max]['peak_rss_mib']:.1f} MiB", file=sys.stderr)
    large = medians([run_file(*LARGE_CASE) for _ in range(REPEATS)])
    print(f"large case: {large['wall_s']:.2f} s", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        whole = time_whole_runs(Path(tmp) / "run")
    networks = {}
    for label, path, sets in NETWORK_CASES:
        networks[label] = medians([run_file(path, sets) for _ in range(REPEATS)])
        print(f"{label}: {networks[label]['wall_s']:.3f} s", file=sys.stderr)
    model_s = time_model()
    counts = {aqm: instructions(aqm_sets(aqm)) for aqm in AQM_SETS}
    counts |= {f"cc:{cc}": instructions(cc_sets(cc)) for cc in CC_CASES}
    print(f"instructions: {counts}", file=sys.stderr)
    rewrite_page(report(speed, ccs, whole, networks, memory, large, model_s, counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
