"""The congestion controls of `aqmlab validate ns3 --tcp`: each aqmlab congestion control
(`tcp.cc`) with its ns-3.37 counterpart, the AQMs its cases run through, and how the scenario
and the program's TCP arguments follow from it.

`TCPS` is the one table: adding a congestion control to the validation is one row. A row's
cases join the grid when aqmlab registers its name (`aqmlab list`), so rows for algorithms
aqmlab does not have yet wait here. The TCP grid is scenario 1 of the BetaRED dumbbell at
N = `TCP_FLOWS`, each congestion control through the AQMs of its row; the program gets the
congestion control (`--tcp`), ECN (`--ecn`, from `tcp.ecn`) and pacing (`--pacing`, from
`tcp.pacing`, or always for a congestion control that ns-3 runs only paced) from the resolved
scenario, and a row's extra ns-3 attributes as `--ns3::Type::Name=Value`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ... import _core


@dataclass(frozen=True)
class Ns3Tcp:
    """One aqmlab congestion control and how the ns-3 program runs it."""

    cc: str
    """aqmlab's name (`tcp.cc`)."""
    type_id: str
    """The ns-3.37 TcpCongestionOps type, without `ns3::`."""
    aqms: tuple[str, ...] = ("droptail",)
    """The AQMs its cases run through."""
    attributes: tuple[tuple[str, str], ...] = ()
    """ns-3 attribute defaults the type needs to be the algorithm aqmlab names."""
    ecn: bool = False
    """Its cases run ECN-capable senders (`tcp.ecn`) and a marking queue (`queue.ecn`)."""
    paces: bool = False
    """ns-3.37 runs it paced whatever TcpSocketState::EnablePacing says (TcpBbr turns it on
    itself), so the program is told to pace."""
    sets: tuple[tuple[str, str], ...] = ()
    """aqmlab settings (`--set` style) its cases need for aqmlab to run the rules of the ns-3
    type, where the `ns3` preset's default differs."""


TCPS = (
    # TcpNewReno::CongestionAvoidance adds MSS²/cwnd per ACK whatever the ACK covers (and
    # SlowStart one segment per ACK), so with delayed ACKs it grows about half a segment per
    # round trip; the `ns3` preset's `per_segment` growth (RFC 3465 byte counting, what
    # TcpLinuxReno does) would grow one, twice as fast. `per_ack` is ns-3's rule.
    Ns3Tcp("reno", "TcpNewReno", sets=(("tcp.window_growth", '"per_ack"'),)),
    Ns3Tcp("cubic", "TcpCubic"),
    Ns3Tcp("linux_reno", "TcpLinuxReno"),
    Ns3Tcp("scalable", "TcpScalable"),
    Ns3Tcp("hybla", "TcpHybla"),
    Ns3Tcp("bic", "TcpBic"),
    # Step marking at K (`dctcp_k`) is aqmlab's `step`, ns-3's RED as dctcp-example.cc sets it.
    Ns3Tcp("dctcp", "TcpDctcp", aqms=("step",), ecn=True),
    Ns3Tcp("bbr", "TcpBbr", aqms=("droptail", "fq_codel"), paces=True),
    Ns3Tcp("highspeed", "TcpHighSpeed"),
    Ns3Tcp("htcp", "TcpHtcp"),
    Ns3Tcp("illinois", "TcpIllinois"),
    Ns3Tcp("ledbat", "TcpLedbat"),
    Ns3Tcp("lp", "TcpLp"),
    Ns3Tcp("vegas", "TcpVegas"),
    Ns3Tcp("veno", "TcpVeno"),
    # ns-3.37 has no TcpWestwoodPlus type: TcpWestwood runs Westwood+ with this attribute.
    Ns3Tcp(
        "westwood_plus",
        "TcpWestwood",
        attributes=(("ns3::TcpWestwood::ProtocolType", "WestwoodPlus"),),
    ),
    Ns3Tcp("yeah", "TcpYeah"),
)
BY_NAME = {t.cc: t for t in TCPS}

TCP_FLOWS = 50
"""N of the TCP grid. Through drop tail at N = 50 the 1000-packet buffer holds about 950
packets, so each flow's window is about (150 + 950) / 50 = 22 segments: large enough for the
congestion controls' growth and decrease rules to differ (Scalable's, BIC's and Hybla's depart
from Reno's only above a few segments), a loss rate of about 0.4 %, and an ns-3 run of about
30 s for 50 simulated seconds (N = 200 would take three times as long and give windows of 6)."""

DCTCP_K_FRACTION = 7
"""K = C·RTT / 7 (Alizadeh et al. 2010, §3.4: K > C·RTT/7 keeps the link busy)."""


def registered() -> tuple[str, ...]:
    """The congestion controls aqmlab has, in its registry's order."""
    return tuple(_core.catalog()["congestion_controls"])


def available(names: Sequence[str] | None = None) -> tuple[Ns3Tcp, ...]:
    """The rows of `TCPS` aqmlab registers (`names`, default `registered()`), in table order."""
    have = set(registered() if names is None else names)
    return tuple(t for t in TCPS if t.cc in have)


def select(wanted: Sequence[str], names: Sequence[str] | None = None) -> tuple[Ns3Tcp, ...]:
    """The rows named in `wanted` ("all": every available row); ValueError, one line, for a
    name that is not an available congestion control or an empty selection."""
    rows = available(names)
    allowed = [t.cc for t in rows]
    if list(wanted) == ["all"]:
        return rows
    unknown = [w for w in wanted if w not in allowed]
    if unknown or not wanted:
        got = ", ".join(unknown) if unknown else "nothing"
        raise ValueError(
            f"--tcp: must name congestion controls among all, {', '.join(allowed)}; got {got}"
        )
    return tuple(t for t in rows if t.cc in wanted)


def dctcp_k(rate_mbps: float, rtt_ms: float, packet_bytes: int) -> int:
    """DCTCP's marking threshold in packets: ⌈C·RTT / 7⌉."""
    bdp_pkts = rate_mbps * 1e6 * rtt_ms * 1e-3 / (8 * packet_bytes)
    return math.ceil(bdp_pkts / DCTCP_K_FRACTION)


def overrides(cc: str, aqm: str, k_pkts: int) -> list[tuple[str, str]]:
    """`--set` style overrides of the scenario for congestion control `cc` through `aqm`: the
    congestion control, ECN on both sides for a row that needs it, the row's own aqmlab
    settings, and the threshold `k_pkts` of a step-marking queue. Nothing for CUBIC, the
    scenario's own."""
    if cc == "cubic":
        return []
    row = BY_NAME[cc]
    sets = [("tcp.cc", f'"{cc}"')]
    if row.ecn:
        sets += [("tcp.ecn", "true"), ("queue.ecn", "true")]
    sets += row.sets
    if aqm == "step":
        sets.append(("queue.step.k_pkts", str(k_pkts)))
    return sets


class TcpMappingError(ValueError):
    """The resolved scenario's TCP is one the program cannot run; one line."""


def program_args(tcp: Mapping[str, Any]) -> list[str]:
    """The program's TCP arguments for a resolved `[tcp]` table; TcpMappingError for a
    congestion control with no row."""
    cc = tcp["cc"]
    row = BY_NAME.get(cc)
    if row is None:
        raise TcpMappingError(
            f"tcp.cc = {cc!r}: no ns-3 congestion control is mapped for it (one of "
            f"{', '.join(BY_NAME)})"
        )
    ecn = bool(tcp["ecn"])
    pacing = bool(tcp.get("pacing", False)) or row.paces
    return [
        f"--tcp={row.type_id}",
        f"--ecn={'true' if ecn else 'false'}",
        f"--pacing={'true' if pacing else 'false'}",
        *(f"--{name}={value}" for name, value in row.attributes),
    ]
