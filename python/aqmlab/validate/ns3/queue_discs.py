"""aqmlab's bottleneck queue as an ns-3.37 queue disc: the queue disc each AQM maps onto, every
attribute it is given, computed from the resolved `[queue]` table of the scenario, and what
cannot be mapped exactly.

The ns-3 program (`validation/ns3/betared_dumbbell.cc`, defaults in `validation/ns3/aqm_setup.h`)
receives the attributes as `--qdisc=Name=Value,...`, so the ns-3 side always runs with the
values aqmlab resolved. Values are written the way ns-3 parses them: times in whole
nanoseconds (`15000000ns`), rates in bit/s, booleans as `true`/`false`, and `max` for
`Time::Max()` (a threshold that is off).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TIME_MAX = "max"
"""Stands for ns-3's Time::Max() (the program sets it as a TimeValue)."""

QUEUE_DISCS = {
    "droptail": "ns3::FifoQueueDisc",
    "red": "ns3::RedQueueDisc",
    "ared": "ns3::RedQueueDisc",
    "pie": "ns3::PieQueueDisc",
    "codel": "ns3::CoDelQueueDisc",
}


class MappingError(ValueError):
    """The scenario uses an AQM that has no ns-3 counterpart here; one line."""


@dataclass(frozen=True)
class Attribute:
    """One ns-3 attribute and where its value comes from in aqmlab."""

    name: str
    value: str
    source: str
    """The aqmlab key and value it is computed from, or why it is fixed."""


@dataclass(frozen=True)
class QueueDiscMapping:
    aqm: str
    type: str
    attributes: tuple[Attribute, ...]
    differences: tuple[str, ...]
    """What does not map exactly, one sentence each (parameter values the scenario uses that
    ns-3 cannot express, and behaviours the two implementations do not share)."""

    def argument(self) -> str:
        """The program's `--qdisc=` value."""
        return ",".join(f"{a.name}={a.value}" for a in self.attributes)


def _time_ms(ms: float) -> str:
    return f"{round(float(ms) * 1e6)}ns"


def _bool(x: Any) -> str:
    return "true" if bool(x) else "false"


def _num(x: Any) -> str:
    value = float(x)
    return str(int(value)) if value.is_integer() else repr(value)


def _uint(key: str, x: Any, diffs: list[str]) -> str:
    value = float(x)
    if not value.is_integer():
        diffs.append(f"`{key}` = {x:g} is rounded to {round(value)}: ns-3 takes whole bytes.")
    return str(round(value))


def _fixed(name: str, value: str, why: str) -> Attribute:
    return Attribute(name, value, why)


def _from(name: str, value: str, key: str, raw: Any, note: str = "") -> Attribute:
    shown = f'"{raw}"' if isinstance(raw, str) else _bool(raw) if isinstance(raw, bool) else raw
    return Attribute(name, value, f"`{key}` = {shown}" + (f" ({note})" if note else ""))


def _red_family(
    aqm: str, p: Mapping[str, Any], queue: Mapping[str, Any], rate_bps: float, delay_ms: float
) -> tuple[list[Attribute], list[str]]:
    """The attributes RED and ARED share, and the differences of the RED family."""
    diffs: list[str] = []
    k = f"queue.{aqm}"
    spacing = p["spacing"]
    if spacing == "none":
        diffs.append(
            f'`{k}.spacing` = "none" (each arrival dropped with probability p_b) has no ns-3 '
            "counterpart: Wait = false spaces drops uniformly, p_a = p_b/(1 − count·p_b), "
            "which drops about twice as often at a given average."
        )
    if p["byte_mode"]:
        diffs.append(f"`{k}.byte_mode` = true: ns-3 scales by size only in a byte-counted queue.")
    if not p["idle_correction"]:
        diffs.append(f"`{k}.idle_correction` = false: ns-3 always decays the average when idle.")
    if not p["ns_small_queue_guard"]:
        diffs.append(
            f"`{k}.ns_small_queue_guard` = false: ns-3 never drops while one packet is queued."
        )
    diffs.append(
        "ns-3 does not drop the first arrival that finds the average at or above MinTh after "
        "it was below (or after the queue held at most one packet); it restarts its count "
        "there instead. aqmlab does not model that exemption."
    )
    mean = _uint(f"{k}.mean_pkt_bytes", p["mean_pkt_bytes"], diffs)
    attrs = [
        _from("Gentle", _bool(p["gentle"]), f"{k}.gentle", p["gentle"]),
        _from("Wait", _bool(spacing == "wait"), f"{k}.spacing", spacing),
        _from("MeanPktSize", mean, f"{k}.mean_pkt_bytes", p["mean_pkt_bytes"]),
        _fixed("IdlePktSize", "0", "0: the idle decay uses the link rate in MeanPktSize packets"),
        _fixed("UseHardDrop", "true", "aqmlab's forced drops above q_max are drops"),
        _from("UseEcn", _bool(queue["ecn"]), "queue.ecn", queue["ecn"]),
        _fixed("FengAdaptive", "false", "not used"),
        _fixed("NLRED", "false", "not used"),
        _fixed("Ns1Compat", "false", "not used"),
        _fixed("LinkBandwidth", f"{round(rate_bps)}bps", "`topology.bottleneck_rate_mbps`"),
        _fixed("LinkDelay", _time_ms(delay_ms), "`topology.bottleneck_delay_ms`"),
    ]
    return attrs, diffs


def _red(queue: Mapping[str, Any], rate_bps: float, delay_ms: float) -> QueueDiscMapping:
    p = queue["red"]
    common, diffs = _red_family("red", p, queue, rate_bps, delay_ms)
    attrs = [
        _fixed("ARED", "false", "plain RED"),
        _fixed("AdaptMaxP", "false", "fixed p_max"),
        _from("MinTh", _num(p["q_min_pkts"]), "queue.red.q_min_pkts", p["q_min_pkts"]),
        _from("MaxTh", _num(p["q_max_pkts"]), "queue.red.q_max_pkts", p["q_max_pkts"]),
        _from("QW", _num(p["w"]), "queue.red.w", p["w"]),
        _from("LInterm", _num(1.0 / p["p_max"]), "queue.red.p_max", p["p_max"], "1/p_max"),
        *common,
    ]
    return QueueDiscMapping("red", QUEUE_DISCS["red"], tuple(attrs), tuple(diffs))


def _ared(queue: Mapping[str, Any], rate_bps: float, delay_ms: float) -> QueueDiscMapping:
    p = queue["ared"]
    k = "queue.ared"
    common, diffs = _red_family("ared", p, queue, rate_bps, delay_ms)
    automatic = p["q_min_pkts"] == 0 and p["q_max_pkts"] == 0 and p["w"] == 0
    if p["adapt_at"] != "arrival":
        diffs.append(
            f'`{k}.adapt_at` = "{p["adapt_at"]}": ns-3 adapts p_max only at arrivals, once the '
            "interval has passed since p_max last changed."
        )
    if not p["gentle_slope_from_initial_p_max"]:
        diffs.append(
            f"`{k}.gentle_slope_from_initial_p_max` = false: ns-3 fixes the gentle slope from "
            "the initial p_max."
        )
    why = "0: automatic in both"
    attrs = [
        _fixed(
            "ARED",
            _bool(automatic),
            "true: thresholds and weight automatic"
            if automatic
            else "false: ARED = true would override the thresholds and weight",
        ),
        _fixed("AdaptMaxP", "true", "p_max adapted"),
        _from("MinTh", _num(p["q_min_pkts"]), f"{k}.q_min_pkts", p["q_min_pkts"], why),
        _from("MaxTh", _num(p["q_max_pkts"]), f"{k}.q_max_pkts", p["q_max_pkts"], why),
        _from("QW", _num(p["w"]), f"{k}.w", p["w"], why),
        _from(
            "TargetDelay",
            _time_ms(p["target_delay_ms"]),
            f"{k}.target_delay_ms",
            p["target_delay_ms"],
        ),
        _from("Interval", _time_ms(1e3 * p["interval_s"]), f"{k}.interval_s", p["interval_s"]),
        _from("Alpha", _num(p["alpha"]), f"{k}.alpha", p["alpha"]),
        _from("Beta", _num(p["beta"]), f"{k}.beta", p["beta"]),
        _from("Top", _num(p["top"]), f"{k}.top", p["top"]),
        _from("Bottom", _num(p["bottom"]), f"{k}.bottom", p["bottom"], why),
        _from("Rtt", _time_ms(p["rtt_ms"]), f"{k}.rtt_ms", p["rtt_ms"]),
        _from(
            "LInterm",
            _num(1.0 / p["p_max_initial"]),
            f"{k}.p_max_initial",
            p["p_max_initial"],
            "1/p_max_initial",
        ),
        *common,
    ]
    return QueueDiscMapping("ared", QUEUE_DISCS["ared"], tuple(attrs), tuple(diffs))


def _pie(queue: Mapping[str, Any]) -> QueueDiscMapping:
    p = queue["pie"]
    k = "queue.pie"
    diffs: list[str] = []
    for key in ("burst_rule", "short_queue_rule"):
        if p[key] != "ns3":
            diffs.append(f'`{k}.{key}` = "{p[key]}": ns-3 has only its own rule.')
    diffs.append(
        "ns-3 drops when its uniform draw u ≤ p, aqmlab when u < p (no difference in practice)."
    )
    attrs = [
        _from(
            "MeanPktSize",
            _uint(f"{k}.mean_pkt_bytes", p["mean_pkt_bytes"], diffs),
            f"{k}.mean_pkt_bytes",
            p["mean_pkt_bytes"],
        ),
        _from("QueueDelayReference", _time_ms(p["target_ms"]), f"{k}.target_ms", p["target_ms"]),
        _from("Tupdate", _time_ms(p["t_update_ms"]), f"{k}.t_update_ms", p["t_update_ms"]),
        _fixed("Supdate", "0ns", "aqmlab's first update is at t = 0"),
        _from("A", _num(p["alpha"]), f"{k}.alpha", p["alpha"]),
        _from("B", _num(p["beta"]), f"{k}.beta", p["beta"]),
        _from(
            "MaxBurstAllowance", _time_ms(p["max_burst_ms"]), f"{k}.max_burst_ms", p["max_burst_ms"]
        ),
        _from(
            "DequeueThreshold",
            str(int(p["dq_threshold_bytes"])),
            f"{k}.dq_threshold_bytes",
            p["dq_threshold_bytes"],
        ),
        _from(
            "UseDequeueRateEstimator",
            _bool(p["use_dequeue_rate_estimator"]),
            f"{k}.use_dequeue_rate_estimator",
            p["use_dequeue_rate_estimator"],
        ),
        _from(
            "UseCapDropAdjustment",
            _bool(p["use_cap_drop_adjustment"]),
            f"{k}.use_cap_drop_adjustment",
            p["use_cap_drop_adjustment"],
        ),
        _from(
            "UseDerandomization",
            _bool(p["use_derandomization"]),
            f"{k}.use_derandomization",
            p["use_derandomization"],
        ),
        _from("UseEcn", _bool(queue["ecn"]), "queue.ecn", queue["ecn"]),
        _from("MarkEcnThreshold", _num(p["ecn_max_p"]), f"{k}.ecn_max_p", p["ecn_max_p"]),
        _fixed("ActiveThreshold", TIME_MAX, "off (not modelled in aqmlab)"),
        _fixed("CeThreshold", TIME_MAX, "off (not modelled in aqmlab)"),
        _fixed("UseL4s", "false", "off (not modelled in aqmlab)"),
    ]
    return QueueDiscMapping("pie", QUEUE_DISCS["pie"], tuple(attrs), tuple(diffs))


def _codel(queue: Mapping[str, Any]) -> QueueDiscMapping:
    p = queue["codel"]
    k = "queue.codel"
    diffs = [
        "ns-3 exempts a backlog < MinBytes from dropping, aqmlab ≤ mtu_bytes (one byte apart).",
        "ns-3 counts CoDel's time in 1.024 µs units and first drops once now > first_above_time "
        "(aqmlab: integer ns and ≥).",
    ]
    attrs = [
        _from("Target", _time_ms(p["target_ms"]), f"{k}.target_ms", p["target_ms"]),
        _from("Interval", _time_ms(p["interval_ms"]), f"{k}.interval_ms", p["interval_ms"]),
        _from("MinBytes", str(int(p["mtu_bytes"])), f"{k}.mtu_bytes", p["mtu_bytes"]),
        _from("UseEcn", _bool(queue["ecn"]), "queue.ecn", queue["ecn"]),
        _fixed("UseL4s", "false", "off (not modelled in aqmlab)"),
        _fixed("CeThreshold", TIME_MAX, "off (not modelled in aqmlab)"),
    ]
    return QueueDiscMapping("codel", QUEUE_DISCS["codel"], tuple(attrs), tuple(diffs))


def queue_disc(queue: Mapping[str, Any], rate_bps: float, delay_ms: float) -> QueueDiscMapping:
    """The ns-3 queue disc for a resolved `[queue]` table (with its AQM sub-tables) on a
    bottleneck of `rate_bps` and `delay_ms`. MappingError for an AQM with no counterpart."""
    aqm = queue["aqm"]
    if aqm == "droptail":
        mapping = QueueDiscMapping("droptail", QUEUE_DISCS["droptail"], (), ())
    elif aqm == "red":
        mapping = _red(queue, rate_bps, delay_ms)
    elif aqm == "ared":
        mapping = _ared(queue, rate_bps, delay_ms)
    elif aqm == "pie":
        mapping = _pie(queue)
    elif aqm == "codel":
        mapping = _codel(queue)
    else:
        raise MappingError(
            f"queue.aqm = {aqm!r} has no ns-3 queue disc here (one of {', '.join(QUEUE_DISCS)})"
        )
    size = _from("MaxSize", f"{int(queue['limit_pkts'])}p", "queue.limit_pkts", queue["limit_pkts"])
    diffs = list(mapping.differences)
    if queue.get("limit_bytes", 0):
        diffs.append("`queue.limit_bytes` is not mapped: the ns-3 queue disc counts packets.")
    return QueueDiscMapping(mapping.aqm, mapping.type, (size, *mapping.attributes), tuple(diffs))
