"""Validation against ns-3.37: the BetaRED dumbbell (Giménez et al. 2022, §3.1) run in aqmlab
and in ns-3 (`validation/ns3/betared_dumbbell.cc`, built with g++ against Debian's `libns3-dev`)
with drop tail, RED, Adaptive RED, PIE, CoDel, COBALT, FQ-CoDel, FQ-PIE and FQ-COBALT; every
run stored as it finishes, and a Markdown page comparing the two (`page`).

The aqmlab side is `experiments/betared/scenario1.toml` (constant N) or `scenario2.toml`
(N = 100, 200, N_max, 200, 100) with `--set` overrides for the AQM, N, the duration and the
measurement window, for two variants of scenario 1: mixed round-trip times (per-flow access
delays) and a UDP flood (one constant-bit-rate UDP flow at 1.5 × the bottleneck rate among the
TCP flows), and for congestion controls other than CUBIC (`tcp_cases`). The ns-3 side gets
every argument from that same resolved scenario, the queue disc's attributes through
`queue_discs`. Both report the metrics over the same
window [start, end] (definitions in docs/validation-ns3.md).

The program is compiled once per source digest into `target/ns3/`. `AQMLAB_NS3_PROGRAM` names
a ready program to run instead (nothing is built or checked then); `NS3_INCLUDE_DIR` (default
/usr/include) and `CXX` (default g++) choose the headers and the compiler.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ... import _core
from ...data import EXPERIMENTS
from ...engine.scenario import toml_literal
from ...engine.store import RunStore
from .. import common
from ..common import ROOT, Comparison, Job, Outcome, ValidationError
from . import tcp_cases
from .program import (
    Program,
    program_sources,
)
from .queue_discs import PROGRAM_AQMS, MappingError, QueueDiscMapping, queue_disc
from .traffic_args import delays_arg, traffic_args

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

SCENARIOS = {
    1: EXPERIMENTS / "betared" / "scenario1.toml",
    2: EXPERIMENTS / "betared" / "scenario2.toml",
}
PAGE = "validation-ns3.md"
TABLE = "validation-ns3.csv"
DOCS_PAGE = ROOT / "docs" / PAGE


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
CLASSIC_AQMS = ("droptail", "red", "ared", "pie", "codel")
FQ_AND_COBALT = ("cobalt", "fq_codel", "fq_pie", "fq_cobalt")
"""COBALT and the flow-queueing disciplines (Linux's deployed AQMs)."""
AQMS = CLASSIC_AQMS + FQ_AND_COBALT

MIXED_RTT = "mixed-rtt"
UDP_FLOOD = "udp-flood"
VARIANTS = {MIXED_RTT: "mixed RTT", UDP_FLOOD: "UDP flood"}
"""Variants of scenario 1, by the name in case ids, with their label."""

MIXED_RTT_BOTTLENECK_DELAY_MS = 2.0
MIXED_RTT_RTTS_MS = tuple(float(rtt) for rtt in range(10, 201, 10))
"""The round-trip propagation delays of the mixed-RTT variant: flow i has RTT_(i mod 20). With
the bottleneck at 2 ms and the receivers' links at 1 ms (scenario 1's), sender i's access delay
is RTT/2 − 3 ms: 2, 7, ..., 97 ms."""
UDP_FLOOD_RATE = 1.5
"""The UDP flood's rate as a multiple of the bottleneck rate."""

PROGRAM_TOPOLOGY = {
    "kind": "dumbbell",
    "access_rate_mbps": 100.0,
}
"""The topology the ns-3 program builds; the scenario must match it (the bottleneck's rate and
the delays are the program's arguments)."""

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
    variant: str = ""
    """"" (the BetaRED scenario as it is), or a variant of scenario 1 (`VARIANTS`): `mixed-rtt`
    or `udp-flood` (N TCP flows and the UDP flood)."""
    cc: str = "cubic"
    """The congestion control (`tcp.cc`; a row of `tcp_cases.TCPS`); CUBIC is the scenario's
    own, and its cases' ids and labels do not name it."""

    @property
    def case_id(self) -> str:
        variant = f"-{self.variant}" if self.variant else ""
        cc = "" if self.cc == "cubic" else f"-{self.cc}"
        return (
            f"s{self.scenario}{variant}{cc}-{self.aqm}-n{self.flows}-d{self.duration_s:g}"
            f"-w{self.window_start_s:g}"
        )

    @property
    def label(self) -> str:
        n = "N" if self.scenario == 1 else "N_max"
        variant = f" {VARIANTS[self.variant]}" if self.variant else ""
        cc = "" if self.cc == "cubic" else f" {self.cc}"
        return (
            f"S{self.scenario}{variant}{cc} {self.aqm} {n}={self.flows} "
            f"({self.window_start_s:g}–{self.duration_s:g} s)"
        )


@dataclass(frozen=True)
class Grid:
    cases: tuple[Case, ...]
    seeds_by_scenario: Mapping[int, tuple[int, ...]]
    timeout_s: float

    def seeds(self, case: Case) -> tuple[int, ...]:
        return self.seeds_by_scenario[case.scenario]


def grid(quick: bool, aqms: Sequence[str] | None = None, tcps: Sequence[str] | None = None) -> Grid:
    """The quick grid: scenario 1 at N in {50, 200} for the nine AQMs and its two variants at
    N = 50 for COBALT and the flow-queueing AQMs, 20 s runs measured over 10–20 s, one seed.
    The full grid: scenario 1 at N in {50, 200, 800} and its two variants at N = 100, for the
    nine AQMs, 50 s runs measured over 25–50 s, seeds 1–3; scenario 2 with N_max = 800 over the
    whole 250 s, seed 1, for the five classic AQMs. `aqms`, when given, keeps only those AQMs'
    cases (ValueError, one line, for a name outside `AQMS` or an empty selection). `tcps`, when
    given, makes it the TCP grid of those congestion controls instead (`tcp_grid`)."""
    if tcps is not None:
        g = tcp_grid(quick, tcps)
    elif quick:
        cases = tuple(Case(1, aqm, n, 20.0, 10.0) for n in (50, 200) for aqm in AQMS)
        cases += tuple(
            Case(1, aqm, 50, 20.0, 10.0, variant) for variant in VARIANTS for aqm in FQ_AND_COBALT
        )
        g = Grid(cases, {1: (1,)}, QUICK_TIMEOUT_S)
    else:
        cases = tuple(Case(1, aqm, n, 50.0, 25.0) for n in (50, 200, 800) for aqm in AQMS)
        cases += tuple(Case(2, aqm, 800, 250.0, 0.0) for aqm in CLASSIC_AQMS)
        cases += tuple(
            Case(1, aqm, 100, 50.0, 25.0, variant) for variant in VARIANTS for aqm in AQMS
        )
        g = Grid(cases, {1: (1, 2, 3), 2: (1,)}, FULL_TIMEOUT_S)
    return g if aqms is None else only_aqms(g, aqms)


def tcp_grid(quick: bool, tcps: Sequence[str], registered: Sequence[str] | None = None) -> Grid:
    """Scenario 1 at N = `tcp_cases.TCP_FLOWS` for each congestion control named in `tcps`
    ("all": every row of `tcp_cases.TCPS` that aqmlab registers, or `registered` when given)
    through the AQMs of its row: quick, 20 s runs measured over 10–20 s, one seed; full, 50 s
    runs measured over 25–50 s, seeds 1–3. ValueError, one line, for another name."""
    duration, start, seeds, timeout = (
        (20.0, 10.0, (1,), QUICK_TIMEOUT_S) if quick else (50.0, 25.0, (1, 2, 3), FULL_TIMEOUT_S)
    )
    rows = tcp_cases.select(tcps, registered)
    cases = tuple(
        Case(1, aqm, tcp_cases.TCP_FLOWS, duration, start, cc=row.cc)
        for row in rows
        for aqm in row.aqms
    )
    return Grid(cases, {1: seeds}, timeout)


def joined(grids: Iterable[Grid]) -> Grid:
    """One grid of the cases of `grids` (which share their seeds), to run together."""
    grids = list(grids)
    cases = tuple(c for g in grids for c in g.cases)
    seeds: dict[int, tuple[int, ...]] = {}
    for g in grids:
        seeds.update(g.seeds_by_scenario)
    return Grid(cases, seeds, max(g.timeout_s for g in grids))


def only_aqms(g: Grid, aqms: Sequence[str]) -> Grid:
    """The cases of `g` whose AQM is in `aqms` (names from `AQMS`)."""
    unknown = [a for a in aqms if a not in AQMS]
    if unknown or not aqms:
        got = ", ".join(unknown) if unknown else "nothing"
        raise ValueError(f"--aqm: must name AQMs among {', '.join(AQMS)}; got {got}")
    cases = tuple(c for c in g.cases if c.aqm in aqms)
    if not cases:
        have = ", ".join(dict.fromkeys(c.aqm for c in g.cases))
        raise ValueError(f"--aqm: this grid has cases only for {have}; got {', '.join(aqms)}")
    return Grid(cases, g.seeds_by_scenario, g.timeout_s)


# ---------------------------------------------------------------------------------------------
# the scenario, resolved, and the ns-3 arguments it gives


def mixed_rtt_sender_delays_ms() -> list[float]:
    """Sender i's access delay in the mixed-RTT variant (item i mod 20): RTT/2 − the bottleneck's
    and the receiver's link's delays."""
    receiver = 1.0  # scenario 1's receiver_delay_ms, which the variant keeps
    return [rtt / 2 - MIXED_RTT_BOTTLENECK_DELAY_MS - receiver for rtt in MIXED_RTT_RTTS_MS]


def udp_flood_traffic(flows: int) -> dict[str, Any]:
    """The `[traffic]` table of the UDP-flood variant: N long-lived TCP flows (group `tcp`) and
    one CBR UDP flow of 1000-byte packets at 1.5 × the bottleneck rate (group `udp`), both
    started like scenario 1's flows."""
    scenario1 = tomllib.loads(SCENARIOS[1].read_text(encoding="utf-8"))
    rate_kbps = UDP_FLOOD_RATE * scenario1["topology"]["bottleneck_rate_mbps"] * 1e3
    return {
        "start_jitter_s": 1.0,
        "groups": [
            {"name": "tcp", "schedule": {"kind": "constant", "flows": flows}},
            {
                "name": "udp",
                "transport": "udp",
                "source": {"kind": "cbr", "rate_kbps": rate_kbps, "packet_bytes": 1000},
                "schedule": {"kind": "constant", "flows": 1},
            },
        ],
    }


def aqmlab_overrides(case: Case) -> list[tuple[str, str]]:
    """`--set` style overrides of the scenario file for one case."""
    key = "traffic.schedule.flows" if case.scenario == 1 else "traffic.schedule.n_max"
    window = f"[{float(case.window_start_s)!r}, {float(case.duration_s)!r}]"
    sets = [("queue.aqm", f'"{case.aqm}"')]
    if case.variant == UDP_FLOOD:
        # [traffic] replaced whole: the file's single schedule becomes two groups.
        sets.append(("traffic", toml_literal(udp_flood_traffic(case.flows))))
    else:
        sets.append((key, str(case.flows)))
    sets += [
        ("duration_s", repr(float(case.duration_s))),
        ("measure.window", window),
    ]
    if case.variant == MIXED_RTT:
        sets += [
            ("topology.bottleneck_delay_ms", repr(MIXED_RTT_BOTTLENECK_DELAY_MS)),
            ("topology.sender_delay_ms", toml_literal({"list": mixed_rtt_sender_delays_ms()})),
        ]
    if case.aqm == "red":
        # The BetaRED files drop each arrival with probability p_b ("none"), which ns-3's RED
        # cannot do; both sides run Floyd & Jacobson's uniform spacing (ns-3's Wait = false),
        # so that the comparison judges the TCP, not two different RED variants.
        sets.append(("queue.red.spacing", '"uniform"'))
    return sets + tcp_cases.overrides(case.cc, case.aqm, step_threshold_pkts(case.scenario))


@functools.cache
def step_threshold_pkts(scenario: int) -> int:
    """The marking threshold K of step marking (`tcp_cases.dctcp_k`) on the scenario's
    own bottleneck: its rate, its round-trip propagation delay, its data packets."""
    from ...engine.scenario import Scenario

    sc = tomllib.loads(Scenario.load(SCENARIOS[scenario]).resolved())
    topo = sc["topology"]
    one_way = topo["sender_delay_ms"] + topo["bottleneck_delay_ms"] + topo["receiver_delay_ms"]
    return tcp_cases.dctcp_k(topo["bottleneck_rate_mbps"], 2 * one_way, sc["tcp"]["packet_bytes"])


@functools.cache
def resolved_text(case: Case) -> str:
    """The case's scenario with every default filled in, as aqmlab runs it (canonical TOML)."""
    from ...engine.scenario import Scenario

    return Scenario.load(SCENARIOS[case.scenario]).with_literals(aqmlab_overrides(case)).resolved()


def resolved(case: Case) -> dict[str, Any]:
    """`resolved_text` as nested dicts."""
    return tomllib.loads(resolved_text(case))


def max_packet_bytes(sc: Mapping[str, Any]) -> int:
    """The largest packet a resolved scenario sends: TCP's data packets or a UDP source's."""
    sizes = [int(sc["tcp"]["packet_bytes"])]
    for group in sc["traffic"].get("groups", []):
        if group.get("transport") == "udp":
            sizes.append(int(group["source"]["packet_bytes"]))
    return max(sizes)


def mapping(case: Case) -> QueueDiscMapping:
    """The ns-3 queue disc for the case's resolved `[queue]`."""
    return mapping_of(resolved(case))


def mapping_of(sc: Mapping[str, Any]) -> QueueDiscMapping:
    """The ns-3 queue disc for a resolved scenario's `[queue]`."""
    topo = sc["topology"]
    try:
        return queue_disc(
            sc["queue"],
            topo["bottleneck_rate_mbps"] * 1e6,
            topo["bottleneck_delay_ms"],
            max_packet_bytes(sc),
        )
    except MappingError as e:
        raise ValidationError(str(e)) from None


def bridge_qdisc(queue: Mapping[str, Any], seed: int) -> str:
    """The `--qdisc` attributes of the AqmlabQueueDisc for a resolved `[queue]`: the AQM, every
    parameter of its table as `key=value` pairs (`;` between them, since `,` separates the
    attributes), ECN, and the seed, which gives the AQM the random stream that aqmlab's own run
    of that seed gives the bottleneck's AQM."""
    aqm = queue["aqm"]
    if queue.get("limit_bytes", 0):
        raise ValidationError("queue.limit_bytes: the ns-3 bridge counts its buffer in packets")

    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return repr(value) if isinstance(value, float) else str(value)

    params = ";".join(f"{k}={text(v)}" for k, v in queue.get(aqm, {}).items())
    ecn = "true" if queue["ecn"] else "false"
    return f"Aqm={aqm},Params={params},UseEcn={ecn},Seed={seed}"


def ns3_args(case: Case, seed: int, bridge: bool = False) -> list[str]:
    """The program's arguments for one run, all taken from the resolved scenario; seed n is
    ns-3's RngRun n (RngSeed 1). With `bridge`, the queue disc is the case's aqmlab AQM inside
    ns-3 (`--aqm=aqmlab`, the bridge build of the program) instead of ns-3's own. ValidationError
    when the scenario is one the program does not build."""
    return args_of(resolved(case), seed, bridge)


def args_of(sc: Mapping[str, Any], seed: int, bridge: bool = False) -> list[str]:
    """`ns3_args` for any resolved scenario (as nested dicts) that the program builds."""
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
    if bridge:
        aqm, qdisc = "aqmlab", bridge_qdisc(sc["queue"], seed)
    else:
        name = sc["queue"]["aqm"]
        aqm, qdisc = PROGRAM_AQMS.get(name, name), mapping_of(sc).argument()
    try:
        tcp_args = tcp_cases.program_args(tcp)
    except tcp_cases.TcpMappingError as e:
        raise ValidationError(str(e)) from None
    flows, jitter = traffic_args(traffic)
    window = sc["measure"]["window"]
    start = 0.0 if window == "all" else window[0]
    return [
        f"--aqm={aqm}",
        *flows,
        f"--duration={sc['duration_s']!r}",
        f"--measureFrom={float(start)!r}",
        f"--startJitter={jitter!r}",
        f"--buffer={topo['router_buffer_pkts']}",
        f"--bottleneckRate={float(topo['bottleneck_rate_mbps'])!r}",
        f"--bottleneckDelay={float(topo['bottleneck_delay_ms'])!r}",
        f"--senderDelays={delays_arg('sender_delay_ms', topo['sender_delay_ms'])}",
        f"--receiverDelays={delays_arg('receiver_delay_ms', topo['receiver_delay_ms'])}",
        f"--segmentSize={tcp['packet_bytes'] - NS3_HEADERS_BYTES}",
        *tcp_args,
        "--stop=quiet",
        "--seed=1",
        f"--run={seed}",
        f"--qdisc={qdisc}",
    ]


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


def run_ns3(
    program_path: Path, case: Case, seed: int, timeout_s: float, bridge: bool = False
) -> dict[str, Any]:
    args = ns3_args(case, seed, bridge)
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
    # Stored, not judged: the same figures as the ns-3 program's extras.
    extras = {k: float(row[k]) for k in ("jain_fairness", "bottleneck_marks") if k in row}
    groups = {str(g["name"]): float(g["throughput_mbps"]) for g in result.records("groups")}
    return {
        "summary": summary,
        "wall_s": wall,
        "overrides": [list(s) for s in aqmlab_overrides(case)],
        "aqmlab": {**extras, "group_throughput_mbps": groups},
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
