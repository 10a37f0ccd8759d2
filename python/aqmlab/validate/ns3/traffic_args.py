"""The ns-3 program's arguments for the topology's access delays and the traffic, from the
resolved scenario: what the program models (one TCP group of bulk flows on a constant or
BetaRED schedule, optionally one group of constant-bit-rate UDP flows, access delays given as
numbers or lists), and a one-line ValidationError for anything else."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..common import ValidationError


def delays_arg(key: str, value: Any) -> str:
    """An access delay of the resolved `[topology]` (a number, or `{ list = [...] }`) as the
    program's comma-separated list; ValidationError for a drawn one."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(float(value))
    if isinstance(value, Mapping) and set(value) == {"list"}:
        return ",".join(repr(float(v)) for v in value["list"])
    raise ValidationError(
        f"topology.{key} = {value!r}: the ns-3 program takes a number or a list of delays "
        "(flow i gets item i mod its length), not a drawn one"
    )


GROUP_KEYS = {"name", "start_jitter_s", "schedule", "transport", "source"}
"""The keys of a flow group the ns-3 program models."""
UDP_MIN_PACKET_BYTES = 81
"""The program tells data packets from TCP's control packets by their size on the wire (PPP 2
+ IP, more than 82 B), so a UDP packet must be larger than 80 B to count as data."""


def schedule_args(schedule: Mapping[str, Any], where: str) -> list[str]:
    if schedule["kind"] == "constant":
        return ["--schedule=constant", f"--flows={schedule['flows']}"]
    if schedule["kind"] == "betared_steps":
        return [
            "--schedule=betared",
            f"--nBase={schedule['n_base']}",
            f"--nMid={schedule['n_mid']}",
            f"--nMax={schedule['n_max']}",
            f"--phase={schedule['phase_s']!r}",
        ]
    raise ValidationError(
        f"{where}.kind = {schedule['kind']!r}: the ns-3 program runs 'constant' and "
        "'betared_steps' only"
    )


def traffic_args(traffic: Mapping[str, Any]) -> tuple[list[str], float]:
    """The program's flows and their start jitter: one schedule of TCP flows, or groups: one of
    TCP flows (bulk), then at most one of constant-bit-rate UDP flows (constant schedule), all
    with one start jitter. ValidationError for anything else."""
    if "groups" not in traffic:
        schedule = schedule_args(traffic["schedule"], "traffic.schedule")
        return schedule, float(traffic["start_jitter_s"])
    groups = traffic["groups"]
    kinds = [g.get("transport", "tcp") for g in groups]
    if kinds not in (["tcp"], ["tcp", "udp"]):
        raise ValidationError(
            f"traffic.groups: transports {kinds}: the ns-3 program runs one TCP group, "
            "optionally followed by one UDP group"
        )
    for i, g in enumerate(groups):
        extra = sorted(set(g) - GROUP_KEYS)
        if extra:
            raise ValidationError(
                f"traffic.groups[{i}].{extra[0]}: the ns-3 program does not model a group's "
                f"{extra[0]}"
            )
    jitters = {float(g["start_jitter_s"]) for g in groups}
    if len(jitters) != 1:
        raise ValidationError(
            "traffic.groups: start_jitter_s differs between groups: the ns-3 program starts "
            "every flow with one jitter"
        )
    tcp_source = groups[0].get("source", {"kind": "bulk"})
    if tcp_source["kind"] != "bulk":
        raise ValidationError(
            f"traffic.groups[0].source.kind = {tcp_source['kind']!r}: the ns-3 program's TCP "
            "flows are bulk"
        )
    args = schedule_args(groups[0]["schedule"], "traffic.groups[0].schedule")
    if len(groups) == 2:
        udp, schedule = groups[1]["source"], groups[1]["schedule"]
        if udp["kind"] != "cbr" or udp.get("random", False):
            raise ValidationError(
                "traffic.groups[1].source: the ns-3 program's UDP flows are constant bit rate "
                '(kind = "cbr", random = false)'
            )
        if schedule["kind"] != "constant":
            raise ValidationError(
                f"traffic.groups[1].schedule.kind = {schedule['kind']!r}: the ns-3 program's "
                "UDP flows run from their start to the end (constant)"
            )
        if udp["packet_bytes"] < UDP_MIN_PACKET_BYTES:
            raise ValidationError(
                f"traffic.groups[1].source.packet_bytes = {udp['packet_bytes']}: the ns-3 "
                f"program's UDP packets are at least {UDP_MIN_PACKET_BYTES} B, or it would "
                "count them as control packets"
            )
        args += [
            f"--udpFlows={schedule['flows']}",
            f"--udpRateKbps={float(udp['rate_kbps'])!r}",
            f"--udpPacketBytes={udp['packet_bytes']}",
        ]
    return args, jitters.pop()
