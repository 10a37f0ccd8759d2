"""Validation against ns-3.37: the BetaRED dumbbell (Giménez et al. 2022, §3.1) run in aqmlab
and in ns-3 (`validation/ns3/betared_dumbbell.cc`, built with g++ against Debian's `libns3-dev`)
with drop tail, RED, Adaptive RED, PIE and CoDel; every run stored as it finishes, and a
Markdown page comparing the two (`page`).

The aqmlab side is `experiments/betared/scenario1.toml` (constant N) or `scenario2.toml`
(N = 100, 200, N_max, 200, 100) with `--set` overrides for the AQM, N, the duration and the
measurement window; the ns-3 side gets every argument from that same resolved scenario, the
queue disc's attributes through `queue_discs`. Both report the metrics over the same
window [start, end] (definitions in docs/validation-ns3.md).

The program is compiled once per source digest into `target/ns3/`. `AQMLAB_NS3_PROGRAM` names
a ready program to run instead (nothing is built or checked then); `NS3_INCLUDE_DIR` (default
/usr/include) and `CXX` (default g++) choose the headers and the compiler.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ... import _core
from ...data import EXPERIMENTS, VALIDATION
from ...engine.store import RunStore
from .. import common
from ..common import ROOT, Comparison, Job, Outcome, ValidationError, in_checkout
from .queue_discs import MappingError, QueueDiscMapping, queue_disc

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

NS3_DIR = VALIDATION / "ns3"
PROGRAM_SOURCE = NS3_DIR / "betared_dumbbell.cc"
PROGRAM_HEADERS = (NS3_DIR / "aqm_setup.h", NS3_DIR / "dumbbell_probes.h")
SCENARIOS = {
    1: EXPERIMENTS / "betared" / "scenario1.toml",
    2: EXPERIMENTS / "betared" / "scenario2.toml",
}
BUILD_DIR = (
    ROOT / "target" / "ns3"
    if in_checkout()
    else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "aqmlab" / "ns3"
)
"""Where the ns-3 program is built: the checkout's `target/`, else the user's cache."""
PAGE = "validation-ns3.md"
TABLE = "validation-ns3.csv"
DOCS_PAGE = ROOT / "docs" / PAGE

PROGRAM_ENV = "AQMLAB_NS3_PROGRAM"
INCLUDE_ENV = "NS3_INCLUDE_DIR"
CXX_ENV = "CXX"
INSTALL = "install it with: apt-get install libns3-dev g++"
LIBS = (
    "-lns3-applications",
    "-lns3-traffic-control",
    "-lns3-point-to-point",
    "-lns3-internet",
    "-lns3-network",
    "-lns3-core",
)
CXX_FLAGS = ("-O2", "-std=c++17")
BUILD_TIMEOUT_S = 900.0

QUICK_TIMEOUT_S = 1800.0
FULL_TIMEOUT_S = 6 * 3600.0
"""Longest an ns-3 run may take before it is stopped and reported as failed."""

METRICS = (
    "link_efficiency",
    "throughput_mbps",
    "avg_queue_pkts",
    "std_queue_pkts",
    "drop_rate",
    "delay_mean_ms",
)
AQMS = ("droptail", "red", "ared", "pie", "codel")

NS3_HEADERS_BYTES = 52
"""IPv4 (20) + TCP (20) + the timestamp option padded (12): ns-3's header on a data packet,
so SegmentSize = tcp.packet_bytes − 52 keeps both sides' packets the same size."""


@dataclass(frozen=True)
class Case:
    """One scenario of the grid, run with the grid's seeds in both simulators."""

    scenario: int
    """1: constant N; 2: the BetaRED steps N = 100, 200, N_max, 200, 100."""
    aqm: str
    flows: int
    """N (scenario 1) or N_max (scenario 2)."""
    duration_s: float
    window_start_s: float
    """The metrics cover [window_start_s, duration_s]."""

    @property
    def case_id(self) -> str:
        return (
            f"s{self.scenario}-{self.aqm}-n{self.flows}-d{self.duration_s:g}"
            f"-w{self.window_start_s:g}"
        )

    @property
    def label(self) -> str:
        n = "N" if self.scenario == 1 else "N_max"
        return (
            f"S{self.scenario} {self.aqm} {n}={self.flows} "
            f"({self.window_start_s:g}–{self.duration_s:g} s)"
        )


@dataclass(frozen=True)
class Grid:
    cases: tuple[Case, ...]
    seeds_by_scenario: Mapping[int, tuple[int, ...]]
    timeout_s: float

    def seeds(self, case: Case) -> tuple[int, ...]:
        return self.seeds_by_scenario[case.scenario]


def grid(quick: bool) -> Grid:
    """The quick grid (scenario 1, N in {50, 200}, 20 s runs measured over 10–20 s, one seed) or
    the full one (scenario 1, N in {50, 200, 800}, 50 s runs measured over 25–50 s, seeds 1–3;
    scenario 2 with N_max = 800 over the whole 250 s, seed 1), each for the five AQMs."""
    if quick:
        cases = tuple(Case(1, aqm, n, 20.0, 10.0) for n in (50, 200) for aqm in AQMS)
        return Grid(cases, {1: (1,)}, QUICK_TIMEOUT_S)
    cases = tuple(Case(1, aqm, n, 50.0, 25.0) for n in (50, 200, 800) for aqm in AQMS)
    cases += tuple(Case(2, aqm, 800, 250.0, 0.0) for aqm in AQMS)
    return Grid(cases, {1: (1, 2, 3), 2: (1,)}, FULL_TIMEOUT_S)


# ---------------------------------------------------------------------------------------------
# the scenario, resolved, and the ns-3 arguments it gives


def aqmlab_overrides(case: Case) -> list[tuple[str, str]]:
    """`--set` style overrides of the scenario file for one case."""
    key = "traffic.schedule.flows" if case.scenario == 1 else "traffic.schedule.n_max"
    window = f"[{float(case.window_start_s)!r}, {float(case.duration_s)!r}]"
    sets = [
        ("queue.aqm", f'"{case.aqm}"'),
        (key, str(case.flows)),
        ("duration_s", repr(float(case.duration_s))),
        ("measure.window", window),
    ]
    if case.aqm == "red":
        # The BetaRED files drop each arrival with probability p_b ("none"), which ns-3's RED
        # cannot do; both sides run Floyd & Jacobson's uniform spacing (ns-3's Wait = false),
        # so that the comparison judges the TCP, not two different RED variants.
        sets.append(("queue.red.spacing", '"uniform"'))
    return sets


@functools.cache
def resolved_text(case: Case) -> str:
    """The case's scenario with every default filled in, as aqmlab runs it (canonical TOML)."""
    from ...engine.scenario import Scenario

    return Scenario.load(SCENARIOS[case.scenario]).with_literals(aqmlab_overrides(case)).resolved()


def resolved(case: Case) -> dict[str, Any]:
    """`resolved_text` as nested dicts."""
    return tomllib.loads(resolved_text(case))


PROGRAM_TOPOLOGY = {
    "kind": "dumbbell",
    "bottleneck_rate_mbps": 50.0,
    "bottleneck_delay_ms": 10.0,
    "access_rate_mbps": 100.0,
    "sender_delay_ms": 1.0,
    "receiver_delay_ms": 1.0,
}
"""The topology the ns-3 program builds; the scenario must match it."""


def mapping(case: Case) -> QueueDiscMapping:
    """The ns-3 queue disc for the case's resolved `[queue]`."""
    sc = resolved(case)
    topo = sc["topology"]
    try:
        return queue_disc(
            sc["queue"], topo["bottleneck_rate_mbps"] * 1e6, topo["bottleneck_delay_ms"]
        )
    except MappingError as e:
        raise ValidationError(str(e)) from None


def ns3_args(case: Case, seed: int) -> list[str]:
    """The program's arguments for one run, all taken from the resolved scenario; seed n is
    ns-3's RngRun n (RngSeed 1). ValidationError when the scenario is one the program does not
    build."""
    sc = resolved(case)
    topo, traffic, tcp = sc["topology"], sc["traffic"], sc["tcp"]
    for key, value in PROGRAM_TOPOLOGY.items():
        if topo[key] != value:
            raise ValidationError(
                f"topology.{key} = {topo[key]!r}: the ns-3 program builds {value!r} only"
            )
    if topo["router_buffer_pkts"] != topo["host_buffer_pkts"]:
        raise ValidationError(
            "topology.router_buffer_pkts and host_buffer_pkts differ: the ns-3 program gives "
            "every port one buffer size"
        )
    if tcp["cc"] != "cubic":
        raise ValidationError(f"tcp.cc = {tcp['cc']!r}: the ns-3 program runs TcpCubic only")
    schedule = traffic["schedule"]
    args = [f"--aqm={case.aqm}"]
    if schedule["kind"] == "constant":
        args += ["--schedule=constant", f"--flows={schedule['flows']}"]
    elif schedule["kind"] == "betared_steps":
        args += [
            "--schedule=betared",
            f"--nBase={schedule['n_base']}",
            f"--nMid={schedule['n_mid']}",
            f"--nMax={schedule['n_max']}",
            f"--phase={schedule['phase_s']!r}",
        ]
    else:
        raise ValidationError(
            f"traffic.schedule.kind = {schedule['kind']!r}: the ns-3 program runs "
            "'constant' and 'betared_steps' only"
        )
    start, end = sc["measure"]["window"]
    return [
        *args,
        f"--duration={sc['duration_s']!r}",
        f"--measureFrom={float(start)!r}",
        f"--startJitter={traffic['start_jitter_s']!r}",
        f"--buffer={topo['router_buffer_pkts']}",
        f"--segmentSize={tcp['packet_bytes'] - NS3_HEADERS_BYTES}",
        "--stop=quiet",
        "--seed=1",
        f"--run={seed}",
        f"--qdisc={mapping(case).argument()}",
    ]


# ---------------------------------------------------------------------------------------------
# the ns-3 program: found, built, run


@dataclass(frozen=True)
class Toolchain:
    cxx: str
    include_dir: Path

    def version_text(self) -> str:
        return (self.include_dir / "ns3" / "version-defines.h").read_text(errors="replace")


def find_ns3() -> Toolchain:
    """The compiler and the ns-3 headers; ValidationError with the install hint when either is
    missing."""
    include_dir = Path(os.environ.get(INCLUDE_ENV) or "/usr/include")
    for header in ("core-module.h", "version-defines.h", "pie-queue-disc.h"):
        if not (include_dir / "ns3" / header).is_file():
            raise ValidationError(f"ns-3 not found (no {include_dir / 'ns3' / header}); {INSTALL}")
    cxx_name = os.environ.get(CXX_ENV) or "g++"
    cxx = shutil.which(cxx_name)
    if cxx is None:
        raise ValidationError(f"ns-3 not found (no C++ compiler `{cxx_name}` on PATH); {INSTALL}")
    return Toolchain(cxx, include_dir)


def program_sources() -> tuple[Path, ...]:
    return (PROGRAM_SOURCE, *PROGRAM_HEADERS)


def source_digest(tools: Toolchain) -> str:
    """Covers the program's sources, the compiler flags and libraries, and ns-3's version."""
    h = hashlib.sha256()
    for path in program_sources():
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(" ".join((*CXX_FLAGS, *LIBS)).encode() + b"\0" + tools.version_text().encode())
    return h.hexdigest()[:12]


def build(tools: Toolchain, build_dir: Path = BUILD_DIR) -> Path:
    """The compiled program, built now unless a build of the same sources exists."""
    target = build_dir / f"betared_dumbbell-{source_digest(tools)}"
    if target.is_file() and os.access(target, os.X_OK):
        return target
    build_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    cmd = [
        tools.cxx,
        *CXX_FLAGS,
        f"-I{tools.include_dir}",
        str(PROGRAM_SOURCE),
        "-o",
        str(tmp),
        *LIBS,
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if "error" in line]
            first = (errors or done.stderr.strip().splitlines() or ["no message"])[0]
            raise ValidationError(
                f"building the ns-3 program failed ({first.strip()}); is libns3-dev 3.37 "
                f"installed? {INSTALL}"
            )
        os.replace(tmp, target)
    except subprocess.TimeoutExpired:
        raise ValidationError(
            f"building the ns-3 program took over {BUILD_TIMEOUT_S:g} s"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


@dataclass(frozen=True)
class Program:
    """The ns-3 program to run and the digest that names its build in run ids."""

    path: Path
    digest: str


def program() -> Program:
    """`AQMLAB_NS3_PROGRAM` when set (named by the digest of its bytes), else the build for the
    current sources (made now if needed; named by the source digest)."""
    given = os.environ.get(PROGRAM_ENV)
    if given:
        path = Path(given)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ValidationError(f"{PROGRAM_ENV}={given}: not an executable file")
        return Program(path.resolve(), hashlib.sha256(path.read_bytes()).hexdigest()[:12])
    tools = find_ns3()
    return Program(build(tools), source_digest(tools))


def run_id(case: Case, seed: int, side: str, prog: Program | None = None) -> str:
    """`<case>-s<seed>-<side>-<digest>`: the digest covers what the run depends on (the
    program's digest and its arguments for ns-3; aqmlab's build and the resolved scenario for
    aqmlab), so a stored run is reused only while its inputs are unchanged."""
    if side == "ns3":
        if prog is None:
            raise ValueError("an ns-3 run id needs the program")
        key = f"ns-3 program {prog.digest}\n" + " ".join(ns3_args(case, seed))
    else:
        key = f"{common.aqmlab_build()}\n{resolved_text(case)}\n#seed={seed}"
    return f"{case.case_id}-s{seed}-{side}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


NS3_KEYS = (
    *METRICS,
    "window_start_s",
    "window_end_s",
    "avg_queue_qdisc_pkts",
    "jitter_ms",
    "bottleneck_arrivals",
    "bottleneck_drops",
    "bottleneck_departures",
    "data_sent",
    "data_delivered",
)


def parse_ns3_output(text: str) -> dict[str, Any]:
    """The program's JSON line (the last line of its output that starts with `{`); ValueError
    (one line) when there is none or it lacks a metric. Metrics become floats; the rest of the
    record (phases, queue-disc attributes, TCP events) is kept as it is."""
    lines = [line for line in text.splitlines() if line.startswith("{")]
    if not lines:
        raise ValueError("ns-3 output has no JSON line of results")
    try:
        data = json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise ValueError(f"ns-3 output: the JSON line does not parse ({e.msg})") from None
    if not isinstance(data, dict):
        raise ValueError("ns-3 output: the JSON line is not an object")
    for key in NS3_KEYS:
        if key not in data:
            raise ValueError(f"ns-3 output lacks '{key}'")
        value = data[key]
        if value is None:
            data[key] = float("nan")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            data[key] = float(value)
        else:
            raise ValueError(f"ns-3 output: {key} is not a number: {value!r}")
    return data


def run_ns3(program_path: Path, case: Case, seed: int, timeout_s: float) -> dict[str, Any]:
    args = ns3_args(case, seed)
    stdout, wall = common.run_process([str(program_path), *args], timeout_s, "ns-3")
    try:
        data = parse_ns3_output(stdout)
    except ValueError as e:
        raise ValidationError(str(e)) from None
    summary = {k: data.pop(k) for k in NS3_KEYS}
    return {"summary": summary, "wall_s": wall, "command": args, "ns3": data}


# ---------------------------------------------------------------------------------------------
# aqmlab


def run_aqmlab(case: Case, seed: int) -> dict[str, Any]:
    from ...engine.runner import run
    from ...engine.scenario import Scenario

    scenario = Scenario.load(SCENARIOS[case.scenario]).with_literals(aqmlab_overrides(case))
    t0 = time.monotonic()
    result = run(scenario, seed=seed)
    wall = time.monotonic() - t0
    row = result.summary.iloc[0]
    keys = (
        *METRICS,
        "window_start_s",
        "window_end_s",
        "jitter_ms",
        "bottleneck_arrivals",
        "bottleneck_drops",
        "bottleneck_departures",
        "data_sent",
        "data_delivered",
    )
    summary = {k: float(row[k]) for k in keys}
    return {
        "summary": summary,
        "wall_s": wall,
        "overrides": [list(s) for s in aqmlab_overrides(case)],
    }


# ---------------------------------------------------------------------------------------------
# running the grid and writing the page


def all_jobs(g: Grid) -> list[Job]:
    """Every (case, seed, side) of the grid: ns-3 runs first, the costliest (most flows, longest
    run) first, so that two at a time finish close together; then the aqmlab runs."""
    ns3 = [(c, s, "ns3") for c in g.cases for s in g.seeds(c)]
    ns3.sort(key=lambda j: -j[0].flows * j[0].duration_s)
    return ns3 + [(c, s, "aqmlab") for c in g.cases for s in g.seeds(c)]


def _do(prog: Program | None, job: Job, timeout_s: float) -> dict[str, Any]:
    case, seed, side = job
    if side == "ns3":
        assert prog is not None
        out = run_ns3(prog.path, case, seed, timeout_s)
    else:
        out = run_aqmlab(case, seed)
    return {"side": side, "case": asdict(case), "seed": seed, **out}


def execute(
    out: Path,
    g: Grid,
    jobs: int,
    prog: Program,
    on_done: Callable[[str, float], None] | None = None,
) -> Outcome:
    """Run the grid's missing runs on `jobs` threads (each ns-3 run is its own process) and
    store each one as it finishes."""

    def rid(case: Case, seed: int, side: str) -> str:
        return run_id(case, seed, side, prog)

    return common.execute(
        out, all_jobs(g), rid, lambda job: _do(prog, job, g.timeout_s), jobs, on_done
    )


def compare(store: RunStore, g: Grid, prog: Program) -> list[tuple[Case, list[Comparison]]]:
    def rid(case: Case, seed: int, side: str) -> str:
        return run_id(case, seed, side, prog)

    return common.compare(store, [(c, g.seeds(c)) for c in g.cases], rid, "ns3", METRICS)


def stored_records(
    store: RunStore, g: Grid, prog: Program
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The stored records per (case id, side), for the page's cost table and notes."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for case in g.cases:
        for side in ("ns3", "aqmlab"):
            for seed in g.seeds(case):
                rid = run_id(case, seed, side, prog)
                if store.has(rid):
                    out.setdefault((case.case_id, side), []).append(store.read(rid))
    return out


def markdown_table(rows: Iterable[tuple[Case, list[Comparison]]]) -> str:
    return common.markdown_table(rows, METRICS)


def check_files() -> None:
    """The program's sources and the scenario files exist; ValidationError otherwise."""
    paths: dict[str, Path] = {str(p): p for p in program_sources()}
    paths.update({f"scenario{k}": v for k, v in SCENARIOS.items()})
    common.check_files(paths)


def check_grid(g: Grid) -> None:
    """Every case resolves and maps onto the program (ValidationError, one line, otherwise),
    before anything runs."""
    for case in g.cases:
        try:
            ns3_args(case, g.seeds(case)[0])
        except _core.ScenarioError as e:
            raise ValidationError(f"{case.label}: {e}") from None


def seeds_text(g: Grid) -> Sequence[str]:
    return [f"scenario {k}: {', '.join(map(str, v))}" for k, v in g.seeds_by_scenario.items()]
