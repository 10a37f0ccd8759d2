"""The Markdown page of `aqmlab validate ns3` (docs/validation-ns3.md): the set-up, the
parameter mapping of every AQM (generated from `queue_discs`, so it always matches what
ran), the metric definitions, the results with verdicts and the per-metric summary, the cost of
each side, and the notes on ns-3.37 that do not depend on the numbers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...engine.outdir import atomic_write, write_file
from ...engine.scenario import toml_literal
from ...engine.store import RunStore
from .. import common
from ..common import LABELS, TOLERANCES, Comparison
from . import tcp_page
from .findings import outside_sections
from .queue_discs import FLOW_QUEUEING
from .suite import (
    CLASSIC_AQMS,
    METRICS,
    MIXED_RTT,
    MIXED_RTT_BOTTLENECK_DELAY_MS,
    MIXED_RTT_RTTS_MS,
    NS3_HEADERS_BYTES,
    PAGE,
    UDP_FLOOD,
    UDP_FLOOD_RATE,
    VARIANTS,
    Case,
    Grid,
    Program,
    aqmlab_overrides,
    compare,
    grid,
    mapping,
    markdown_table,
    mixed_rtt_sender_delays_ms,
    resolved,
    stored_records,
)

Records = Mapping[tuple[str, str], list[dict[str, Any]]]

INTRO = """\
The BetaRED dumbbell (Giménez et al. 2022, §3.1) run in aqmlab and in ns-3.37, an independent
packet-level simulator with a full TCP implementation, with drop tail, RED, Adaptive RED, PIE,
CoDel, COBALT, FQ-CoDel, FQ-PIE and FQ-COBALT at the bottleneck, and two variants of its
scenario 1: mixed round-trip times, and a UDP flood among the TCP flows. `aqmlab validate ns3`
runs both sides, stores every run, and writes this page; neither side is tuned to bring the
numbers together."""

METRIC_ROWS = (
    (
        "link efficiency",
        "time the bottleneck spent transmitting / window length (bits sent onto it / "
        "(capacity × window))",
        "`link_efficiency`",
        "bytes handed to the bottleneck wire (`PhyTxBegin`, PPP header included) × 8 / "
        "the bottleneck's rate (50 Mb/s) / window",
    ),
    (
        "goodput (Mb/s)",
        "payload delivered in order to the receiving applications inside the window × 8 / "
        "window length; headers and duplicates do not count, except that a UDP flow's packets "
        "count whole (IP and UDP headers included), as they arrive",
        "`throughput_mbps`",
        "growth of Σ `PacketSink::GetTotalRx()` over the window, plus 28 B of IP and UDP "
        "headers per packet a UDP sink received",
    ),
    (
        "average queue, queue STD (pkts)",
        "time-weighted mean and population STD of the packets waiting at the port (not the "
        "one being serialised), integrated exactly at every change",
        "`avg_queue_pkts`, `std_queue_pkts`",
        "the queue disc's `PacketsInQueue` (for a flow-queueing disc, the packets of all its "
        "flow queues, which report to it) plus the device's 1-packet queue, integrated at "
        "every change of either",
    ),
    (
        "drop rate",
        "drops at the port / packets arriving there, inside the window (drops at enqueue "
        "and, for CoDel, COBALT and the flow-queueing AQMs, at dequeue and from the head of "
        "the fattest flow queue)",
        "`drop_rate`",
        "`QueueDisc::GetStats()` of the root queue disc (its flow queues' drops included): "
        "dropped / received packets, differences over the window",
    ),
    (
        "mean delay (ms)",
        "one-way delay of every data packet that reaches its receiver inside the window, "
        "from the moment its sender put it on the wire (propagation, serialisation and "
        "queueing; retransmissions included)",
        "`delay_mean_ms`",
        "a packet tag set when a sender's device starts sending a data packet (longer than "
        "82 B on the wire: PPP 2 + IPv4 20 + the longest TCP header 60), read when the packet "
        "has arrived at its receiver's device",
    ),
)

METRIC_DEFINITIONS = "\n".join(
    [
        "All over the same window [start, end] at R1's port onto the bottleneck, defined the "
        "same way on both sides:",
        "",
        "| metric | definition | aqmlab | ns-3 |",
        "|---|---|---|---|",
        *(f"| {' | '.join(row)} |" for row in METRIC_ROWS),
        "",
        "Not judged but stored with every run: jitter (mean |d_i − d_(i−1)| over consecutive "
        "data packets of a flow), arrivals, drops, marks and departures at the port, data "
        "packets sent and delivered, Jain's fairness index over the flows' goodputs and the "
        "goodput of the TCP and the UDP flows apart, and on the ns-3 side the queue disc's "
        "attributes as it ran, its drop and mark reasons, for a flow-queueing disc the flow "
        "queues it created and the attributes of its first one, TCP events (fast recoveries, "
        "timeout episodes, RTO back-offs), handshake delays and, for scenario 2, the same "
        "metrics per phase.",
    ]
)

NS3_SETUP = """\
- **Version and build.** Debian 12's `libns3-dev` 3.37-2 (`apt-get install libns3-dev g++`).
  Its build profile is "release", with `NS_LOG` compiled in and asserts out. The pkg-config
  files it ships give a broken include flag, so the libraries are named directly. The harness
  compiles [`validation/ns3/betared_dumbbell.cc`](../validation/ns3/betared_dumbbell.cc) (with
  `aqm_setup.h` and `dumbbell_probes.h`, written against ns-3's public API) with
  `g++ -O2 -std=c++17` into `target/ns3/betared_dumbbell-<digest>`, the digest covering the
  sources, the flags and ns-3's version, so a changed source is rebuilt and its runs redone.
  [`validation/ns3/run_ns3.sh`](../validation/ns3/run_ns3.sh) builds and runs the same program by
  hand. Each run prints one JSON line.
- **Topology.** One sender node and one sink node per flow and two routers. Each host sits on
  its own point-to-point link of 100 Mb/s and 1 ms to its router; R1–R2 is 50 Mb/s, 10 ms
  (the scenario's rate and delay, `--bottleneckRate` and `--bottleneckDelay`). (The mixed-RTT
  variant: R1–R2 2 ms, and sender i's link the delay the scenario gives flow i.) Every link is
  its own /30 subnet; routes come from `Ipv4GlobalRoutingHelper::PopulateRoutingTables()`.
  `--routing=static` gives the same paths by static routes (a default route on each host, one
  route per side on each router) for runs whose global routing tables, one entry per link on
  every node, would not fit in memory (BENCHMARKS.md's 10 000 flows). Its output is the
  same (checked on 20 and 800 flows, every metric equal), and ns-3 runs faster with it, as
  its lookups no longer scan those tables: 30.6 s of simulation against 37.7 s for 800 flows
  over 8 s. `--routing=nix` gives them by ns-3's nix-vector routing (`Ipv4NixVectorHelper`),
  which finds a destination's path once and keeps it, where static routes still scan a table
  of every link for every packet; with `--ns3::Ipv4::WeakEsModel=false` as well, a router no
  longer looks for each packet's destination among the addresses of all its interfaces (no
  packet is addressed to a router). `make bench-ns3` runs scenario 2 that way (and the
  large case, 10 000 flows, with static routes and the strong model, as nix-vector
  routing's search for each destination's path over the routers' 10 001 devices is slower
  there). On scenario 2
  (N_max = 800, drop tail) its output, every field of the JSON line but the wall times, was
  the same as with static routes and the defaults, over 20 simulated seconds (9.8 s against
  46.3 s) and over the whole 250 s (162 s against 648 s, the two runs side by side on the
  2-core machine). The validation keeps global routing.
- **Queues.** `Ipv4AddressHelper::Assign` installs an FqCoDel queue disc on every device; all
  are removed. The queue under test is the root queue disc of R1's bottleneck device, whose own
  `DropTailQueue` is cut to 1 packet so that the queue disc holds the backlog (ns-3 can
  therefore hold one packet more than aqmlab's 1000). Every other device has a 1000-packet
  `DropTailQueue` and no queue disc, as aqmlab's `router_buffer_pkts = host_buffer_pkts = 1000`.
  A flow-queueing disc (`FqCoDelQueueDisc`, `FqPieQueueDisc`, `FqCobaltQueueDisc`) keeps one
  child queue disc per flow queue; the children report every enqueue, dequeue, drop and mark
  to it, so its `PacketsInQueue` and statistics cover them all.
- **TCP.** `TcpCubic` with `SegmentSize` = `tcp.packet_bytes` − 52: with the timestamp option
  the TCP header is 32 B, so a full data packet is 1000 B at the IP layer as in aqmlab, and
  1002 B on the wire with PPP's 2 bytes. Everything else is ns-3.37's default: SACK, timestamps,
  window scaling, `TcpPrrRecovery`, limited transmit, CUBIC with HyStart and fast convergence
  (C = 0.4, β = 0.7), initial window 10, delayed ACK every 2 segments or 200 ms, MinRto 1 s,
  clock granularity 1 ms, send and receive buffers of 131072 B, a three-way handshake.
- **Traffic.** Each flow starts at a uniform random offset in [0, `traffic.start_jitter_s`] s
  (scenario 2: from the start of its phase), drawn by ns-3's `UniformRandomVariable` with
  RngSeed 1 and RngRun = the seed: the same distribution as aqmlab's, different draws. A
  `PacketSink` runs on every sink node. The sender is the program's `QuietStopBulkSender`: like
  `BulkSendApplication` with MaxBytes 0 it keeps the socket's send buffer full with 512-byte
  writes, but its stop only ends the writes and leaves the socket open, because closing it
  crashes ns-3.37 under RED (see [below](#an-ns-337-crash-and-the-quiet-stop)). A stopped flow
  still delivers what its send buffer holds, up to 138 segments. The UDP flood is the
  program's `CbrSender` on a sender of its own (after the TCP flows): a UDP socket sending a
  packet at its start and then one every packet bits / rate (in whole ns) to the end of the
  run, to a `PacketSink` on a UDP socket. (ns-3's `UdpClient` does the same, but its class
  layout depends on `NS3_LOG_ENABLE`, which Debian's library is built with and the program
  is not.)"""

CRASH = """\
## An ns-3.37 crash, and the quiet stop
With `BulkSendApplication` (`--stop=close`), a BetaRED scenario-2 run with RED died at about
t = 156 s with a segmentation fault in `ns3::TcpTxItem::GetPacketCopy()`, called from
`ns3::TcpSocketBase::PersistTimeout()`. A scaled-down run reproduces it in 18 s:
`--schedule=betared --nBase=10 --nMid=20 --nMax=80 --phase=4 --duration=20 --stop=close
--aqm=red`. ns-3's own log shows the sequence:
1. A flow whose SYNs had been lost is still in SYN_SENT when its application stops.
2. `Close()` in SYN_SENT sends a RST.
3. The RST reaches the sink's *listening* socket. That socket has never seen a SYN, so its
   peer window is still zero, and it starts a zero-window persist timer.
4. When the timer fires 6 s later, the listener tries to copy one byte from its empty send
   buffer, gets no item, and dereferences it.

Debian's build has asserts compiled out, so this ends in a segmentation fault rather than an
assertion. The program therefore stops flows by ending the writes and leaving the socket open
(`--stop=quiet`, the default), which is also closer to aqmlab's "the application stops offering
new data". With drop tail, where both modes complete, the two matched to within 0.6 % on every
whole-run metric of scenario 2."""

COST = """\
ns-3's cost follows the number of hosts wired to the routers, not the number of active flows.
A `perf` sample of a scenario-2 RED run (1602 hosts) put 59 % of the time in IPv4's
per-interface address scans (`Ipv4L3Protocol::GetInterface`/`GetAddress`/`IsDestinationAddress`),
which run for every packet and every interface of a node (each router has N + 1), 8 % in
linear scans of the global routing tables and 14 % in checks whether `NS_LOG` components are
enabled (compiled into Debian's build). Measured by hand earlier on a 2-core virtual machine,
scenario 2 (N_max = 800, 250 s) took 17–19.5 minutes per run in ns-3 (drop tail and RED; 13 s of
it set-up, 4 s of that the global routing tables) and about 1.2 s in aqmlab."""

RERUN = """\
## Rerunning
<!-- not run: needs ns-3.37 installed, and the grids take minutes to hours -->
```sh
apt-get install libns3-dev g++                   # ns-3.37 on Debian 12
.venv/bin/aqmlab validate ns3 --quick --jobs 2   # {quick_runs} runs, several minutes
.venv/bin/aqmlab validate ns3 --jobs 2           # the full grid: hours; rewrites this page
.venv/bin/aqmlab validate ns3 --aqm fq_codel     # one AQM's cases of the full grid
.venv/bin/aqmlab validate ns3 --tcp all          # the TCP grid: each congestion control, N = 50
.venv/bin/aqmlab validate ns3 --bridge --quick   # the AQMs inside ns-3 (validation-ns3-bridge.md)
.venv/bin/aqmlab validate ns3 --betared --quick  # the BetaRED paper's Figs. 8 and 9 in ns-3.37
validation/ns3/run_ns3.sh --duration=20 --schedule=constant --flows=100   # the program by hand
```
Runs are stored under `results/validate-ns3[-quick]/runs/` as they finish; an interrupted
validation resumes where it stopped, and a run is redone only when its inputs change (the
program's sources, its arguments, aqmlab's build or the resolved scenario). The quick grid
writes its page into its output folder only; the full grid also rewrites
`docs/validation-ns3.md`."""


def _join(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return " and ".join(filter(None, [", ".join(items[:-1]), *items[-1:]]))


def _aqm_list(aqms: Sequence[str]) -> str:
    if set(aqms) == set(CLASSIC_AQMS):
        return "the five classic AQMs"
    if len(aqms) == 9:
        return "all nine AQMs"
    return _join(aqms)


def _grid_text(g: Grid, quick: bool) -> str:
    def aqms(cases: Sequence[Case]) -> list[str]:
        return list(dict.fromkeys(c.aqm for c in cases))

    def seeds(n: int) -> str:
        return f"{n} seed{'s' if n > 1 else ''}"

    parts = []
    for variant in ("", *VARIANTS):
        s1 = [c for c in g.cases if c.scenario == 1 and c.variant == variant]
        if not s1:
            continue
        c = s1[0]
        ns = ", ".join(map(str, sorted({c.flows for c in s1})))
        what = {
            "": "scenario 1 (constant N",
            MIXED_RTT: "its mixed-RTT variant (N",
            UDP_FLOOD: "its UDP-flood variant (N TCP flows and one UDP flow, N",
        }[variant]
        parts.append(
            f"{what} ∈ {{{ns}}}, {c.duration_s:g} s runs measured over "
            f"{c.window_start_s:g}–{c.duration_s:g} s, {seeds(len(g.seeds(c)))} on each side) "
            f"with {_aqm_list(aqms(s1))}"
        )
    s2 = [c for c in g.cases if c.scenario == 2]
    if s2:
        n_max = ", ".join(map(str, sorted({c.flows for c in s2})))
        parts.append(
            f"scenario 2 (N = 100, 200, {n_max}, 200, 100 over five 50 s phases, measured over "
            f"the whole 250 s run as the BetaRED reproduction does, "
            f"{seeds(len(g.seeds(s2[0])))}) with {_aqm_list(aqms(s2))}"
        )
    name = "quick grid" if quick else "full grid"
    return f"The {name}: " + "; ".join(parts) + "."


FQ_NOTES = """\
How ns-3.37's flow-queueing discs work, as read from its sources (`fq-codel-queue-disc.cc`,
`fq-pie-queue-disc.cc`, `fq-cobalt-queue-disc.cc`):
- **Flow queues.** A packet goes to flow queue murmur3(5-tuple, Perturbation) mod Flows (or,
  with EnableSetAssociativeHash, a free queue of its set of SetWays). The flow queue and its
  child queue disc (CoDel, PIE or COBALT) are created when the first packet arrives for it and
  kept to the end of the run; the child gets MaxSize, the AQM's parameters, UseEcn, CeThreshold
  and UseL4s from its parent. The program sets two values the parents do not pass on as the
  children's type defaults: CoDel's MinBytes (FqCoDel has none) and PIE's MarkEcnThreshold
  (FqPie keeps its own unused). Each ns-3 run stores the attributes of the first flow queue
  as it ran, and how many flow queues were created.
- **Scheduling.** Deficit round robin over a list of new and a list of old flow queues: a flow
  queue gains Quantum bytes of credit per round and is charged the IP size of every packet it
  sends (ns-3.37 has no attribute for Quantum; the program calls `SetQuantum()`). A new flow
  queue found empty moves to the old list; an old one found empty becomes inactive.
- **Overflow.** When the disc holds more than MaxSize packets after an arrival, it drops from
  the head of the flow queue with the most bytes, up to DropBatchSize packets or until half of
  that queue's bytes are gone (as Linux); these drops count as drops after dequeue.
- **COBALT.** The single `CobaltQueueDisc` raises BLUE's probability by Increment at a tail
  drop and when a departing packet waited longer than BlueThreshold, and lowers it by
  Decrement when a dequeue finds the queue empty, each at most once per Target. Under
  `FqCobaltQueueDisc` the overflow drops from the fattest flow queue do not raise that queue's
  BLUE probability; only the BlueThreshold rule does."""


def _mapping_section(g: Grid) -> str:
    others = [a for a in dict.fromkeys(c.aqm for c in g.cases) if a not in ("droptail", "red")]
    lines = [
        "## AQM parameters: aqmlab → ns-3",
        "",
        "Every ns-3 attribute is set explicitly from the resolved scenario "
        "(`python/aqmlab/validate/ns3/queue_discs.py`; the program's own defaults in "
        "`validation/ns3/aqm_setup.h` are the same values). The scenario files set only "
        f"`[queue.red]`; {_join(others)} run with aqmlab's defaults "
        "(`aqmlab list --params`), which follow ns-3.37's. An attribute named "
        "`ns3::Type::Attribute` is set as that type's default (`Config::SetDefault`), which "
        "is how it reaches the child queue discs a flow-queueing disc creates.",
    ]
    seen: set[str] = set()
    for case in g.cases:
        if case.aqm in seen:
            continue
        seen.add(case.aqm)
        m = mapping(case)
        lines += ["", f"**{case.aqm}**: `{m.type}`", ""]
        lines += ["| ns-3 attribute | value | from aqmlab |", "|---|---|---|"]
        lines += [f"| {a.name} | `{a.value}` | {a.source} |" for a in m.attributes]
        if m.differences:
            lines += ["", "Not mapped exactly:"]
            lines += [f"- {d}" for d in m.differences]
    if any(c.aqm in FLOW_QUEUEING for c in g.cases):
        lines += ["", FQ_NOTES]
    return "\n".join(lines)


def _variant_setup(g: Grid) -> str:
    """The overrides each variant of the grid adds (the same for every case but N)."""
    lines = []
    for variant, name in VARIANTS.items():
        case = next((c for c in g.cases if c.variant == variant), None)
        if case is None:
            continue
        plain = Case(case.scenario, case.aqm, case.flows, case.duration_s, case.window_start_s)
        base = set(aqmlab_overrides(plain))
        sets = [f"`{k} = {v}`" for k, v in aqmlab_overrides(case) if (k, v) not in base]
        lines.append(f"- **{name}** (N = {case.flows} here): " + ", ".join(sets) + ".")
    if not lines:
        return ""
    rtts = MIXED_RTT_RTTS_MS
    delays = mixed_rtt_sender_delays_ms()
    return "\n".join(
        [
            "",
            "",
            "The variants of scenario 1 add these overrides (`queue.aqm`, `duration_s` and "
            "`measure.window` as above):",
            *lines,
            "",
            f"In the mixed-RTT variant flow i has the round-trip propagation delay "
            f"{rtts[0]:g} + 10·(i mod {len(rtts)}) ms, {rtts[0]:g} to {rtts[-1]:g} ms: its "
            f"sender's link has {delays[0]:g} to {delays[-1]:g} ms, the bottleneck "
            f"{MIXED_RTT_BOTTLENECK_DELAY_MS:g} ms and the receiver's link 1 ms. The UDP flood "
            f"sends 1000-byte packets at {UDP_FLOOD_RATE:g} × the 50 Mb/s bottleneck rate from "
            "its own sender, starting like the TCP flows.",
        ]
    )


def _aqmlab_setup(g: Grid) -> str:
    tcp = resolved(g.cases[0])["tcp"]
    per_case = {"preset", "cc", "ecn"} if tcp_page.is_tcp_grid(g) else {"preset"}
    keys = ", ".join(
        f"`{k} = {toml_literal(v)}`" for k, v in sorted(tcp.items()) if k not in per_case
    )
    if tcp_page.is_tcp_grid(g):
        keys += ", and `tcp.cc` (with `tcp.ecn` for an ECN row) as each case names it"
    payload = tcp["packet_bytes"] - tcp["header_bytes"]
    ns3_payload = tcp["packet_bytes"] - NS3_HEADERS_BYTES
    note = (
        ""
        if payload == ns3_payload
        else f" Its data packets carry {payload} B of payload against ns-3's {ns3_payload} B, "
        f"so its goodput ceiling is {payload / ns3_payload - 1:+.1%} of ns-3's."
    )
    return (
        "[`experiments/betared/scenario1.toml`](../experiments/betared/scenario1.toml) and "
        "[`scenario2.toml`](../experiments/betared/scenario2.toml) through the Python API, with "
        "`queue.aqm`, N (`traffic.schedule.flows`) or N_max (`traffic.schedule.n_max`), "
        "`duration_s` and `measure.window` set per case, and the seed. TCP is the "
        f"`{tcp['preset']}` preset ([tcp.md](tcp.md)), resolved to: {keys}.{note}"
        + _variant_setup(g)
    )


def _differences(g: Grid) -> str:
    """What differs between the two set-ups whatever the numbers; the TCP items follow the
    resolved `[tcp]` table, which the `ns3` preset may change."""
    tcp = resolved(g.cases[0])["tcp"]
    if tcp.get("handshake"):
        start = (
            "Both sides open each flow with a three-way handshake whose SYN can be lost "
            "(ns-3 retries after 3 s, then 6, 12, 24 and 48 s)."
        )
    else:
        start = (
            "ns-3's flows open with a three-way handshake, and SYNs are dropped like any other "
            "packet: a lost SYN costs 3 s, then 6, 12, 24 and 48 s. aqmlab's flows send their "
            "initial window at their start time, which makes the onset of a load step sharper."
        )
    return "\n".join(
        [
            "## Known differences in the set-up",
            "These hold whatever the numbers, and are the first places to look when a metric "
            "disagrees:",
            "- **TCP.** The two TCP implementations differ in detail; [tcp.md](tcp.md) lists "
            "what aqmlab's preset models and what it leaves out (its resolved `[tcp]` table is "
            "above). ns-3.37 runs SACK-based recovery with PRR, limited transmit, timestamps and "
            "CUBIC with HyStart.",
            f"- **How flows start.** {start}",
            "- **How flows stop** (scenario 2). ns-3's socket still holds up to 131072 B (138 "
            "segments) of data written but not yet sent when its application stops, and sends "
            "it; aqmlab's sender only completes what is in flight. For the 600 flows stopping "
            "at 150 s that is up to about 83,000 segments, some 13 s of bottleneck time, so the "
            "800-flow load fades out over the first seconds of the fourth phase in ns-3.",
            "- **Buffer.** ns-3's port holds the queue disc's 1000 packets plus one in the "
            "device queue.",
            *(
                [
                    "- **UDP flood.** The ns-3 program's sender sends one packet every packet "
                    "bits / rate rounded to whole nanoseconds (106 667 ns for 1000 B at "
                    "75 Mb/s), the first at its start, as aqmlab's CBR source; its packets are "
                    "not ECN-capable on either side."
                ]
                if any(c.variant == UDP_FLOOD for c in g.cases)
                else []
            ),
            "- **AQMs.** The differences listed with each mapping above.",
        ]
    )


def _quick_runs() -> int:
    """Runs of the quick grid, both sides."""
    q = grid(True)
    return 2 * sum(len(q.seeds(c)) for c in q.cases)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _cost_section(g: Grid, records: Records) -> str:
    lines = [
        "| case | ns-3 wall per run (s) | aqmlab wall per run (s) | ratio |",
        "|---|---:|---:|---:|",
    ]
    totals = {"ns3": 0.0, "aqmlab": 0.0}
    for case in g.cases:
        walls = {}
        for side in ("ns3", "aqmlab"):
            runs = [float(r["wall_s"]) for r in records.get((case.case_id, side), [])]
            totals[side] += sum(runs)
            walls[side] = _mean(runs)
        ratio = walls["ns3"] / walls["aqmlab"] if walls["aqmlab"] > 0 else math.nan
        cells = [
            "–" if not math.isfinite(v) else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
            for v in (walls["ns3"], walls["aqmlab"])
        ]
        lines.append(
            f"| {case.label} | {cells[0]} | {cells[1]} | "
            f"{'–' if not math.isfinite(ratio) else f'{ratio:,.0f}'} |"
        )
    lines += [
        "",
        f"In all: {totals['ns3']:.0f} s of ns-3 runs and {totals['aqmlab']:.1f} s of aqmlab "
        "runs. Each run uses one core; the times are wall times of the whole ns-3 process and "
        "of aqmlab's simulation call, measured while up to `--jobs` runs shared the machine.",
    ]
    return "\n".join(lines)


def _ared_note(g: Grid, records: Records) -> str:
    for case in g.cases:
        if case.aqm != "ared":
            continue
        for record in records.get((case.case_id, "ns3"), []):
            attrs = record.get("ns3", {}).get("qdisc_attributes", {})
            if attrs:
                shown = ", ".join(
                    f"{k} {attrs[k]}" for k in ("MinTh", "MaxTh", "QW", "Bottom") if k in attrs
                )
                return (
                    f"ns-3 resolved ARED's automatic values to {shown} (read back after the run); "
                    "aqmlab computes them with the same formulas ([aqm/ared.md](aqm/ared.md))."
                )
    return ""


def page(
    rows: list[tuple[Case, list[Comparison]]],
    g: Grid,
    quick: bool,
    records: Records,
    builds: str = "",
) -> str:
    """The whole page; `builds` names the aqmlab build and the ns-3 program the runs came
    from."""
    tol = ", ".join(f"{LABELS[m]} {TOLERANCES[m].text()}" for m in METRICS)
    title = "# aqmlab against ns-3.37" + (" (quick grid)" if quick else "")
    one_seed = all(len(s) == 1 for s in g.seeds_by_scenario.values())
    quick_note = (
        [
            "",
            "*This is the quick grid, written by `aqmlab validate ns3 --quick`: short runs"
            + (" and one seed, so no seed spread" if one_seed else "")
            + ". The full grid (`aqmlab validate ns3`) is scenario 1 with 50 s runs at "
            "N ∈ {50, 200, 800} and its two variants at N = 100, for all nine AQMs, with three "
            "seeds per side, plus scenario 2 for the five classic AQMs.*",
        ]
        if quick and not tcp_page.is_tcp_grid(g)
        else []
    )
    parts = [
        title,
        "",
        INTRO,
        *quick_note,
        "",
        "## Results",
        "",
        (tcp_page.grid_text(g, quick) if tcp_page.is_tcp_grid(g) else _grid_text(g, quick))
        + (f" Runs from {builds}." if builds else ""),
        "Each cell: ns-3's mean over its seeds (± half its seed-to-seed range) / aqmlab's mean, "
        "the relative difference, and the verdict. A metric **agrees** (`within`) when "
        f"|aqmlab − ns-3| ≤ the tolerance ({tol}); outside it but inside ns-3's own range over "
        "its seeds (max − min) it is `within spread`.",
        "",
        common.markdown_table(rows, METRICS),
        "",
        common.verdict_counts(rows),
        "",
        "### Per metric",
        "",
        common.summary_table(rows, METRICS),
        "",
        *([] if quick else outside_sections(g)),
        "## Metrics",
        "",
        METRIC_DEFINITIONS,
        "",
        "## Set-up",
        "",
        "**Scenario** (both sides): N long-lived TCP CUBIC flows, each from its own sender "
        "through routers R1 and R2 to its own receiver; edge links 100 Mb/s and 1 ms, bottleneck "
        "R1 → R2 50 Mb/s and 10 ms (24 ms of round-trip propagation), 1000 "
        "packets of buffer on every port, 1000-byte packets, ECN off. Scenario 1 keeps N "
        "constant; scenario 2 steps through N = 100, 200, N_max, 200, 100 over five 50 s phases. "
        "Two variants of scenario 1: **mixed RTT**, whose flows' round-trip propagation delays "
        "spread from 10 to 200 ms (per-flow sender delays, a 2 ms bottleneck), and **UDP "
        "flood**, where one unresponsive constant-bit-rate UDP flow at 1.5 × the bottleneck "
        "rate (75 Mb/s) joins the N TCP flows.",
        "",
        "### ns-3",
        "",
        NS3_SETUP,
        "",
        "### aqmlab",
        "",
        _aqmlab_setup(g),
        "",
        _mapping_section(g),
        "",
        *([tcp_page.mapping_section(g), ""] if tcp_page.is_tcp_grid(g) else []),
        _ared_note(g, records),
        "",
        _differences(g),
        "",
        "## Cost",
        "",
        _cost_section(g, records),
        "",
        COST,
        "",
        CRASH,
        "",
        RERUN.format(quick_runs=_quick_runs()),
        "",
    ]
    return "\n".join(parts)


def write_outputs(
    out: Path,
    g: Grid,
    quick: bool,
    prog: Program,
    docs_page: Path | None = None,
    stem: str = Path(PAGE).stem,
) -> tuple[Path, str]:
    """Write the page `<stem>.md` and the CSV table `<stem>.csv` from the stored runs (the page
    also to `docs_page` when given); returns (page path, per-case table)."""
    store = RunStore(out)
    rows = compare(store, g, prog)
    builds = f"{common.aqmlab_build()} and the ns-3 program build {prog.digest}"
    text = page(rows, g, quick, stored_records(store, g, prog), builds)
    write_file(out / f"{stem}.md", text)
    write_file(out / f"{stem}.csv", common.long_table(rows, "ns3"))
    if docs_page is not None:
        atomic_write(docs_page, text)
    return out / f"{stem}.md", markdown_table(rows)
