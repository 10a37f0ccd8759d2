"""Time ns-3.37 on BetaRED scenario 2 and on the large case, beside the whole `aqmlab run`.

Usage (from the repository root, after `make build`; needs libns3-dev and g++):
  python benches/bench_ns3.py [--limit-min 30] [--case scenario2|large|all] [--rounds 3]

Runs the validation's ns-3 program (`validation/ns3/betared_dumbbell.cc`, docs/validation-ns3.md)
with every argument taken from the same resolved scenario aqmlab runs, stops it after the limit
when it has not finished (and says how far it got), times `aqmlab run` and the engine alone on
the same case, and rewrites the "Side by side with ns-3.37" section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import signal
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from bench import LARGE_CASE, REPEATS, SCENARIO, medians, run_file
from bench_process import whole_run
from bench_sections import NS3_HEADING, read_section, rewrite_page

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

STRONG_ES = "--ns3::Ipv4::WeakEsModel=false"
"""The strong end-system model: a router no longer looks for every packet's destination among
the addresses of all its interfaces (no packet is addressed to a router)."""
CASES = {
    "scenario2": (
        "BetaRED scenario 2, N_max = 800, drop tail, 250 s",
        SCENARIO,
        [],
        ("--routing=nix", STRONG_ES),
    ),
    "large": (
        "10 000 CUBIC flows through a 1 Gb/s bottleneck, 60 s",
        *LARGE_CASE,
        ("--routing=static", STRONG_ES),
    ),
}
"""Each case: its label, scenario file, overrides, and ns-3's settings, the fastest of those
tried that leave ns-3's output the same (METHOD). Nix-vector routing finds a destination's
path once and keeps it, so it wins on scenario 2; with 10 000 flows its search for each
destination's path, over every device of the routers, kept ns-3 from reaching the first
simulated second in 30 minutes, and static routes win."""
LABELS = [label for label, *_ in CASES.values()]
PROGRESS_S = 1.0
"""The ns-3 program reports its simulated time on stderr this often (simulated seconds)."""
PROGRESS = re.compile(r"^t=([0-9.eE+-]+) s\s+wall=([0-9.eE+-]+) s$")


def resolved(path: Path, sets: list[list[str]]) -> dict:
    """Scenario `path` with `sets`, every default filled in, as nested dicts."""
    from aqmlab.engine.scenario import Scenario

    return tomllib.loads(Scenario.load(path).with_literals([(k, v) for k, v in sets]).resolved())


def ns3_args(sc: dict, settings: tuple[str, ...]) -> list[str]:
    """The ns-3 program's arguments for a case's resolved scenario `sc`, as the validation
    derives them, with the case's ns-3 `settings` (`CASES`)."""
    from aqmlab.validate.ns3.suite import args_of

    return [*args_of(sc, sc["seed"]), *settings, f"--progress={PROGRESS_S!r}"]


def run_ns3(program: Path, args: list[str], limit_s: float) -> dict:
    """Run the program until it exits or `limit_s` passes (then it is killed): wall time, peak
    RSS and the simulated time it last reported."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = os.posix_spawn(
            str(program),
            [str(program), *args],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            ],
        )
        finished = False
        while True:
            got, status, usage = os.wait4(proc, os.WNOHANG)
            if got == proc:
                finished = True
                break
            if time.perf_counter() - t0 > limit_s:
                os.kill(proc, signal.SIGKILL)
                _, status, usage = os.wait4(proc, 0)
                break
            time.sleep(0.1)
        wall_s = time.perf_counter() - t0
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        out.seek(0)
        stdout = out.read().decode(errors="replace")
    simulated = [float(m[1]) for m in map(PROGRESS.match, stderr.splitlines()) if m]
    record = {
        "finished": finished,
        "wall_s": wall_s,
        "peak_rss_mib": usage.ru_maxrss / 1024,
        "simulated_s": simulated[-1] if simulated else 0.0,
    }
    if finished:
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"ns-3 failed: {' '.join(stderr.strip().splitlines()[-2:])}")
        from aqmlab.validate.ns3.suite import parse_ns3_output

        parse_ns3_output(stdout)  # a finished run printed its results
    return record


def measure(name: str, limit_s: float, rounds: int) -> dict:
    """Case `name` over `rounds` rounds, each ns-3 once and then the whole `aqmlab run`
    process (median of REPEATS) and the engine alone (median of REPEATS), so that every ratio
    divides times taken minutes apart; a case whose ns-3 run is stopped at the limit runs one
    round (its ratios are lower bounds already)."""
    from aqmlab.validate.ns3.program import program

    label, path, sets, settings = CASES[name]
    prog = program()
    sc = resolved(path, sets)
    done = []
    for i in range(rounds):
        print(f"{name}: round {i + 1}: ns-3, at most {limit_s:g} s", file=sys.stderr)
        ns3 = run_ns3(prog.path, ns3_args(sc, settings), limit_s)
        with tempfile.TemporaryDirectory() as tmp:
            process_s = statistics.median(
                whole_run(path, sets, Path(tmp) / "run") for _ in range(REPEATS)
            )
        engine_s = medians([run_file(path, sets) for _ in range(REPEATS)])["wall_s"]
        print(
            f"{name}: round {i + 1}: ns-3 {ns3['wall_s']:.1f} s, aqmlab run {process_s:.3f} s, "
            f"engine {engine_s:.3f} s: {ns3['wall_s'] / process_s:,.0f} times",
            file=sys.stderr,
        )
        done.append({"ns3": ns3, "process_s": process_s, "engine_s": engine_s})
        if not ns3["finished"]:
            break
    return {"label": label, "duration_s": float(sc["duration_s"]), "rounds": done}


def ratio_cell(ratios: list[float], bound: str) -> str:
    """The median of the rounds' ratios, with their range when there are several."""
    cell = f"{bound}{statistics.median(ratios):,.0f}"
    if len(ratios) > 1:
        cell += f" ({min(ratios):,.0f}–{max(ratios):,.0f})"
    return cell


def row(r: dict) -> str:
    """One table row: medians over the case's rounds; a run stopped at the limit gives lower
    bounds."""
    rounds = r["rounds"]
    ns3_s = statistics.median(x["ns3"]["wall_s"] for x in rounds)
    process_s = statistics.median(x["process_s"] for x in rounds)
    engine_s = statistics.median(x["engine_s"] for x in rounds)
    peak_mib = max(x["ns3"]["peak_rss_mib"] for x in rounds)
    last = rounds[-1]["ns3"]
    if last["finished"]:
        ns3_cell = f"{ns3_s:.1f}"
        bound = ""
    else:
        ns3_cell = (
            f"stopped at {last['wall_s']:.0f} s, past {last['simulated_s']:g} of "
            f"{r['duration_s']:g} simulated s"
        )
        bound = "> "
    by_process = [x["ns3"]["wall_s"] / x["process_s"] for x in rounds]
    by_engine = [x["ns3"]["wall_s"] / x["engine_s"] for x in rounds]
    return (
        f"| {r['label']} | {ns3_cell} | {peak_mib:.0f} | {process_s:.3f} | {engine_s:.3f} | "
        f"{ratio_cell(by_process, bound)} | {ratio_cell(by_engine, bound)} | {len(rounds)} | "
        f"{datetime.date.today().isoformat()} |"
    )


METHOD = (
    "Recorded by `make bench-ns3` (`benches/bench_ns3.py`). ns-3.37 runs the validation's "
    "program (`validation/ns3/betared_dumbbell.cc`, docs/validation-ns3.md: CUBIC with SACK, "
    "948-byte segments, 1000-packet buffers) with every argument taken from the scenario "
    "aqmlab runs, built with `g++ -O2`, and is stopped after {limit} minutes when it has not "
    "finished; its peak RSS is the largest of its processes'. A case runs in rounds (the "
    "rounds column): each round runs ns-3 once and then aqmlab, so that each ratio divides two "
    "times taken minutes apart on a machine whose speed drifts from hour to hour; a case whose "
    "ns-3 run is stopped at the limit runs one round. Each case runs ns-3 with "
    "the fastest of the settings tried that leave its output the same. All use the strong "
    "end-system model (`--ns3::Ipv4::WeakEsModel=false`): a router no longer looks for every "
    "packet's destination among the addresses of all its interfaces, which only a packet "
    "addressed to the router could match. Scenario 2 routes by nix-vector routing "
    "(`--routing=nix`), which finds a destination's path once and keeps it, where static routes "
    "and global routing scan a table of every link for every packet (global routing's tables, "
    "one entry per link on every node, do not fit in memory for 10 000 flows); over its 250 s "
    "ns-3's output, every field of its JSON line but the wall times, was the same as with "
    "static routes and the defaults (docs/validation-ns3.md, the topology). The large case "
    "routes by static routes (`--routing=static`): there nix-vector routing's search for each "
    "destination's path, over every device of the routers, kept ns-3 from reaching the first "
    "simulated second in 30 minutes. Still, each router has one interface per host, and ns-3 "
    "walks lists of them for every packet it forwards (`Node::ReceiveFromDevice` over the "
    "protocol handlers; static routes' longest-prefix scan; nix-vector routing's check for "
    "bridged devices), so its cost per packet grows with the routers' ports; aqmlab's does "
    "not. In each round aqmlab's figures are medians of {repeats}: the whole `aqmlab run FILE "
    "--set ... --quiet` process (start-up, simulation, the output files) and the engine alone "
    "(as in the first table), each on the machine described at the top. The table gives the "
    "medians over the rounds, and each ratio as the median of the rounds' ratios of ns-3's wall "
    "time to aqmlab's, their least and greatest in brackets; for a run stopped at the limit "
    "they are lower bounds. The project's goal for scenario 2 is 300 times for the whole "
    "process."
)


def section(results: list[dict], limit_s: float, old: str | None) -> str:
    """The section with a row per case: the cases measured now, and the others' rows from the
    `old` section as they were."""
    rows = {r["label"]: row(r) for r in results}
    for line in (old or "").splitlines():
        label = line.strip("|").split("|")[0].strip()
        if line.startswith("| ") and label not in rows and label in LABELS:
            rows[label] = line
    lines = [
        NS3_HEADING,
        "",
        "| case | ns-3.37 (s) | ns-3.37 peak RSS (MiB) | `aqmlab run` process (s) | "
        "in the engine (s) | × (process) | × (engine) | rounds | date |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        *[rows[label] for label in LABELS if label in rows],
        "",
        textwrap.fill(METHOD.format(limit=f"{limit_s / 60:g}", repeats=REPEATS), width=100),
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-min", type=float, default=30.0, help="ns-3's limit per case")
    parser.add_argument("--case", choices=[*CASES, "all"], default="all")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds per case, each ns-3 once and then aqmlab (a case stopped at the limit: 1)",
    )
    args = parser.parse_args()
    if not args.limit_min > 0:
        parser.error("--limit-min: must be a number of minutes > 0")
    if args.rounds < 1:
        parser.error("--rounds: must be a whole number of rounds >= 1")
    names = list(CASES) if args.case == "all" else [args.case]
    limit_s = args.limit_min * 60
    results = [measure(name, limit_s, args.rounds) for name in names]
    rewrite_page(sections={NS3_HEADING: section(results, limit_s, read_section(NS3_HEADING))})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
