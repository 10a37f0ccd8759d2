"""aqmlab's bottleneck queue as an ns-3.37 queue disc: the queue disc each AQM maps onto, every
attribute it is given, computed from the resolved `[queue]` table of the scenario, and what
cannot be mapped exactly.

The ns-3 program (`validation/ns3/betared_dumbbell.cc`, defaults in `validation/ns3/aqm_setup.h`)
receives the attributes as `--qdisc=Name=Value,...`, so the ns-3 side always runs with the
values aqmlab resolved. Values are written the way ns-3 parses them: times in whole
nanoseconds (`15000000ns`), rates in bit/s, booleans as `true`/`false`, and `max` for
`Time::Max()` (a threshold that is off). Two kinds of name are not attributes of the queue disc
itself: `ns3::<Type>::<Attribute>` is set as that type's default (`Config::SetDefault`), which
is how a value reaches the child queue discs a flow-queueing disc creates when it does not pass
it on (CoDel's MinBytes under FqCoDel, PIE's MarkEcnThreshold under FqPie); `Quantum` is set
with the flow-queueing disc's `SetQuantum()`, ns-3.37 having no attribute for it.

PIE, CoDel, COBALT and the flow-queueing discs are mapped from tables (`TABLES`), one row per
attribute; a key of the AQM's table that no row maps is listed among the differences.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

TIME_MAX = "max"
"""Stands for ns-3's Time::Max() (the program sets it as a TimeValue)."""

DEFAULT_MAX_PACKET_BYTES = 1500
"""The largest packet assumed when the caller does not say (an Ethernet MTU)."""

QUEUE_DISCS = {
    "droptail": "ns3::FifoQueueDisc",
    "red": "ns3::RedQueueDisc",
    "ared": "ns3::RedQueueDisc",
    "pie": "ns3::PieQueueDisc",
    "codel": "ns3::CoDelQueueDisc",
    "cobalt": "ns3::CobaltQueueDisc",
    "fq_codel": "ns3::FqCoDelQueueDisc",
    "fq_pie": "ns3::FqPieQueueDisc",
    "fq_cobalt": "ns3::FqCobaltQueueDisc",
    "step": "ns3::RedQueueDisc",
}
PROGRAM_AQMS = {"step": "red"}
"""The program's `--aqm` preset for an AQM it has none of: step marking starts from RED's, and
`--qdisc` sets every attribute that makes it a step."""
FLOW_QUEUEING = ("fq_codel", "fq_pie", "fq_cobalt")
"""The AQMs whose ns-3 queue disc keeps one child queue disc per flow queue."""


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


def _shown(raw: Any) -> str:
    """A value of the scenario as the page shows it."""
    return f'"{raw}"' if isinstance(raw, str) else _bool(raw) if isinstance(raw, bool) else str(raw)


def _from(name: str, value: str, key: str, raw: Any, note: str = "") -> Attribute:
    return Attribute(name, value, f"`{key}` = {_shown(raw)}" + (f" ({note})" if note else ""))


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


def _step(queue: Mapping[str, Any]) -> QueueDiscMapping:
    """Step marking at K as RED: MinTh = MaxTh = K, QW 1 (the average is the queue an arrival
    finds), marks instead of drops above MaxTh (UseHardDrop false), as ns-3's dctcp-example
    sets RED up."""
    k = queue["step"]["k_pkts"]
    attrs = [
        _from("MinTh", _num(k), "queue.step.k_pkts", k),
        _from("MaxTh", _num(k), "queue.step.k_pkts", k),
        _fixed("QW", "1", "1: the instantaneous queue"),
        _fixed("Gentle", "false", "no region above MaxTh but the step"),
        _fixed("UseHardDrop", "false", "marks, not drops, at or above MaxTh"),
        _from("UseEcn", _bool(queue["ecn"]), "queue.ecn", queue["ecn"]),
        _fixed("ARED", "false", "plain RED"),
        _fixed("AdaptMaxP", "false", "fixed p_max"),
        _fixed("LInterm", "1", "unused: no region between MinTh and MaxTh"),
    ]
    diffs = (
        "ns-3's RED neither marks nor drops while at most one packet is queued; with K ≥ 2 "
        "that never binds.",
    )
    return QueueDiscMapping("step", QUEUE_DISCS["step"], tuple(attrs), diffs)


# ---------------------------------------------------------------------------------------------
# Table-driven mappings (PIE, CoDel, COBALT and the flow-queueing discs): one row per ns-3
# attribute, so that a key aqmlab gains is one more row. A key of the AQM's table that no row
# maps and no check reads is reported as a difference, never dropped silently.

Convert = Callable[[str, Any, list[str]], str]
"""(the aqmlab key path, its value, the differences so far) -> the value ns-3 is given."""


def _ms(key: str, value: Any, diffs: list[str]) -> str:
    return _time_ms(value)


def _real(key: str, value: Any, diffs: list[str]) -> str:
    return _num(value)


def _flag(key: str, value: Any, diffs: list[str]) -> str:
    return _bool(value)


def _whole(key: str, value: Any, diffs: list[str]) -> str:
    return _uint(key, value, diffs)


def _ms_or_off(key: str, value: Any, diffs: list[str]) -> str:
    return TIME_MAX if float(value) == 0 else _time_ms(value)


@dataclass(frozen=True)
class Row:
    """One ns-3 attribute: from `key` of the AQM's table through `convert`, from `queue.ecn`
    (`ecn`), or the fixed `value`. `note` is shown after the source (for a fixed value: why)."""

    attribute: str
    key: str = ""
    convert: Convert | None = None
    note: str = ""
    value: str = ""
    ecn: bool = False


def _set(attribute: str, key: str, convert: Convert, note: str = "") -> Row:
    return Row(attribute, key, convert, note)


def _const(attribute: str, value: str, why: str) -> Row:
    return Row(attribute, note=why, value=value)


def _use_ecn() -> Row:
    return Row("UseEcn", ecn=True)


@dataclass(frozen=True)
class Context:
    """What a check may need besides the AQM's own table."""

    queue: Mapping[str, Any]
    max_packet_bytes: int
    """The largest packet the scenario sends (IP bytes, headers included)."""


Check = Callable[[str, Mapping[str, Any], Context, list[str]], None]
"""(`queue.<aqm>`, the AQM's table, the context, the differences) -> None; may add
differences, or raise MappingError for a value ns-3 refuses."""


@dataclass(frozen=True)
class TableSpec:
    type: str
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()
    """Differences that hold whatever the values."""
    checks: tuple[Check, ...] = ()
    handled: frozenset[str] = frozenset()
    """Keys a check reads instead of a row."""


OFF = "off (not modelled in aqmlab)"


def _rules(k: str, p: Mapping[str, Any], ctx: Context, diffs: list[str]) -> None:
    for key in ("burst_rule", "short_queue_rule"):
        if p[key] != "ns3":
            diffs.append(f'`{k}.{key}` = "{p[key]}": ns-3 has only its own rule.')


def _memory(k: str, p: Mapping[str, Any], ctx: Context, diffs: list[str]) -> None:
    limit = p["memory_limit_bytes"]
    need = int(ctx.queue["limit_pkts"]) * ctx.max_packet_bytes
    if need > limit:
        diffs.append(
            f"`{k}.memory_limit_bytes` = {limit} can bind (`queue.limit_pkts` × the largest "
            f"packet is {need} B): ns-3.37's flow-queueing queue discs have no memory limit, "
            "only MaxSize."
        )


def _quantum(k: str, p: Mapping[str, Any], ctx: Context, diffs: list[str]) -> None:
    if p["quantum_bytes"] == 0:
        diffs.append(f"`{k}.quantum_bytes` = 0: ns-3 takes Quantum 0 as the device's MTU (1500 B).")


def _set_ways(k: str, p: Mapping[str, Any], ctx: Context, diffs: list[str]) -> None:
    if p["set_associative_hash"] and int(p["flows"]) % int(p["set_ways"]) != 0:
        raise MappingError(
            f"{k}.flows = {p['flows']} is not a multiple of {k}.set_ways = {p['set_ways']}: "
            "ns-3 refuses the set-associative hash then"
        )


def _ce_needs_ecn(k: str, p: Mapping[str, Any], ctx: Context, diffs: list[str]) -> None:
    if p["ce_threshold_ms"] and not ctx.queue["ecn"]:
        diffs.append(
            f"`{k}.ce_threshold_ms` = {p['ce_threshold_ms']:g} with `queue.ecn` = false: ns-3 "
            "marks at CeThreshold only when UseEcn is true, so it marks nothing there."
        )


def _ce_needs_l4s(k: str, p: Mapping[str, Any], ctx: Context, diffs: list[str]) -> None:
    if p["ce_threshold_ms"]:
        diffs.append(
            f"`{k}.ce_threshold_ms` = {p['ce_threshold_ms']:g}: ns-3.37's PIE applies "
            "CeThreshold only to ECT(1) packets in L4S mode (UseL4s, not modelled in aqmlab), "
            "so it marks nothing there."
        )


PIE_HEAD = (
    _set("MeanPktSize", "mean_pkt_bytes", _whole),
    _set("QueueDelayReference", "target_ms", _ms),
    _set("Tupdate", "t_update_ms", _ms),
)
PIE_ROWS = (
    _set("A", "alpha", _real),
    _set("B", "beta", _real),
    _set("MaxBurstAllowance", "max_burst_ms", _ms),
    _set("DequeueThreshold", "dq_threshold_bytes", _whole),
    _set("UseDequeueRateEstimator", "use_dequeue_rate_estimator", _flag),
    _set("UseCapDropAdjustment", "use_cap_drop_adjustment", _flag),
    _set("UseDerandomization", "use_derandomization", _flag),
    _use_ecn(),
)
PIE_NOTES = (
    "ns-3 drops when its uniform draw u ≤ p, aqmlab when u < p (no difference in practice).",
)
PIE_RULES = frozenset({"burst_rule", "short_queue_rule"})

CODEL_ROWS = (
    _set("Target", "target_ms", _ms),
    _set("Interval", "interval_ms", _ms),
)
CODEL_NOTES = (
    "ns-3 exempts a backlog < MinBytes from dropping, aqmlab ≤ mtu_bytes (one byte apart).",
    "ns-3 counts CoDel's time in 1.024 µs units and first drops once now > first_above_time "
    "(aqmlab: integer ns and ≥).",
)

COBALT_ROWS = (
    *CODEL_ROWS,
    _use_ecn(),
    _set("Pdrop", "p_drop_initial", _real, "BLUE's drop probability at the start"),
    _set("Increment", "increment", _real),
    _set("Decrement", "decrement", _real),
    _set("BlueThreshold", "blue_threshold_ms", _ms),
)

FQ_ROWS = (
    _set("Flows", "flows", _whole),
    _set("DropBatchSize", "drop_batch_size", _whole),
    _set("Perturbation", "perturbation", _whole, "the hash's seed"),
    _set("Quantum", "quantum_bytes", _whole, "set with SetQuantum(): no attribute in ns-3.37"),
    _set("EnableSetAssociativeHash", "set_associative_hash", _flag),
    _set("SetWays", "set_ways", _whole),
    _set("CeThreshold", "ce_threshold_ms", _ms_or_off, "0: off"),
    _const("UseL4s", "false", OFF),
)
FQ_CHECKS: tuple[Check, ...] = (_memory, _quantum, _set_ways)


def _blue_wrap(k: str, p: Mapping[str, Any], ctx: Context, diffs: list[str]) -> None:
    if not p["ns3_blue_timer_wrap"]:
        diffs.append(
            f"`{k}.ns3_blue_timer_wrap` = false: aqmlab keeps BLUE's last change time in full, "
            "as Linux does; ns-3.37 keeps it in 32-bit nanoseconds, which wrap after 4.3 s "
            "(docs/aqm/cobalt.md)."
        )


COBALT_HANDLED = frozenset({"ns3_blue_timer_wrap"})
FQ_HANDLED = frozenset({"memory_limit_bytes"})


def _fq_notes(child: str) -> tuple[str, ...]:
    return (
        "ns-3 puts a packet in flow queue murmur3(5-tuple, Perturbation) mod Flows (Linux uses "
        "jhash); aqmlab hashes with its own function, so which flows share a flow queue differs "
        "between the two sides: N flows in Flows queues give about N(N − 1)/(2·Flows) colliding "
        "pairs on each side, not the same pairs.",
        f"ns-3 creates a flow queue (a child {child}) when the first packet hashed to it "
        "arrives, and keeps it, with its state, to the end of the run.",
    )


TABLES: dict[str, TableSpec] = {
    "pie": TableSpec(
        "ns3::PieQueueDisc",
        (
            *PIE_HEAD,
            _const("Supdate", "0ns", "aqmlab's first update is at t = 0"),
            *PIE_ROWS,
            _set("MarkEcnThreshold", "ecn_max_p", _real),
            _const("ActiveThreshold", TIME_MAX, OFF),
            _const("CeThreshold", TIME_MAX, OFF),
            _const("UseL4s", "false", OFF),
        ),
        PIE_NOTES,
        (_rules,),
        PIE_RULES,
    ),
    "codel": TableSpec(
        "ns3::CoDelQueueDisc",
        (
            *CODEL_ROWS,
            _set("MinBytes", "mtu_bytes", _whole),
            _use_ecn(),
            _const("UseL4s", "false", OFF),
            _const("CeThreshold", TIME_MAX, OFF),
        ),
        CODEL_NOTES,
    ),
    "cobalt": TableSpec(
        "ns3::CobaltQueueDisc",
        (
            *COBALT_ROWS,
            _set("CeThreshold", "ce_threshold_ms", _ms_or_off, "0: off"),
            _const("UseL4s", "false", OFF),
        ),
        checks=(_ce_needs_ecn, _blue_wrap),
        handled=COBALT_HANDLED,
    ),
    "fq_codel": TableSpec(
        "ns3::FqCoDelQueueDisc",
        (
            *CODEL_ROWS,
            _set(
                "ns3::CoDelQueueDisc::MinBytes",
                "mtu_bytes",
                _whole,
                "the flow queues' CoDelQueueDisc default: FqCoDelQueueDisc has no MinBytes",
            ),
            _use_ecn(),
            *FQ_ROWS,
        ),
        (*_fq_notes("CoDelQueueDisc"), *CODEL_NOTES),
        (*FQ_CHECKS, _ce_needs_ecn),
        FQ_HANDLED,
    ),
    "fq_pie": TableSpec(
        "ns3::FqPieQueueDisc",
        (
            *PIE_HEAD,
            _const("Supdate", "0ns", "no effect in ns-3.37 (below)"),
            *PIE_ROWS,
            _set(
                "MarkEcnThreshold",
                "ecn_max_p",
                _real,
                "FqPieQueueDisc keeps it and does not pass it on: see the next row",
            ),
            _set(
                "ns3::PieQueueDisc::MarkEcnThreshold",
                "ecn_max_p",
                _real,
                "the flow queues' PieQueueDisc default",
            ),
            _const(
                "ns3::PieQueueDisc::ActiveThreshold",
                TIME_MAX,
                "off (not modelled in aqmlab); the flow queues' PieQueueDisc default",
            ),
            *FQ_ROWS,
        ),
        (
            *_fq_notes("PieQueueDisc"),
            "Each flow queue's PIE makes its first update when it is created and then one "
            "every Tupdate, whether or not it holds packets, so the flow queues' updates are "
            "staggered by their creation times (ns-3.37's PieQueueDisc schedules its timer "
            "before its attributes are set, so Supdate has no effect).",
            *PIE_NOTES,
        ),
        (_rules, *FQ_CHECKS, _ce_needs_l4s),
        PIE_RULES | FQ_HANDLED,
    ),
    "fq_cobalt": TableSpec(
        "ns3::FqCobaltQueueDisc",
        (
            *COBALT_ROWS,
            _set(
                "ns3::CobaltQueueDisc::BlueThreshold",
                "blue_threshold_ms",
                _ms,
                "the flow queues' CobaltQueueDisc default: FqCobaltQueueDisc does not pass "
                "BlueThreshold on",
            ),
            *FQ_ROWS,
        ),
        (
            *_fq_notes("CobaltQueueDisc"),
            "FqCobaltQueueDisc passes only MaxSize, Interval, Target, Pdrop, Increment and "
            "Decrement to its flow queues' CobaltQueueDiscs: their UseEcn and CeThreshold stay "
            "CobaltQueueDisc's defaults (off), whatever the discipline's attributes say; aqmlab "
            "applies `queue.ecn` and the CE threshold to every flow queue.",
        ),
        (*FQ_CHECKS, _ce_needs_ecn, _blue_wrap),
        FQ_HANDLED | COBALT_HANDLED,
    ),
}
"""The table-driven mappings, by aqmlab AQM name."""


def _tabled(aqm: str, queue: Mapping[str, Any], max_packet_bytes: int) -> QueueDiscMapping:
    spec = TABLES[aqm]
    k = f"queue.{aqm}"
    p = queue[aqm]
    diffs: list[str] = []
    ctx = Context(queue, max_packet_bytes)
    for check in spec.checks:
        check(k, p, ctx, diffs)
    diffs += spec.notes
    attrs = []
    for row in spec.rows:
        if row.ecn:
            attrs.append(_from(row.attribute, _bool(queue["ecn"]), "queue.ecn", queue["ecn"]))
        elif row.convert is None:
            attrs.append(_fixed(row.attribute, row.value, row.note))
        else:
            if row.key not in p:
                raise MappingError(
                    f"{k}.{row.key}: not in the resolved scenario, but the ns-3 mapping of "
                    f"{aqm} reads it (validate/ns3/queue_discs.py)"
                )
            value = row.convert(f"{k}.{row.key}", p[row.key], diffs)
            attrs.append(_from(row.attribute, value, f"{k}.{row.key}", p[row.key], row.note))
    mapped = {row.key for row in spec.rows} | spec.handled
    for key in sorted(set(p) - mapped):
        diffs.append(
            f"`{k}.{key}` = {_shown(p[key])} is not mapped: the ns-3 program passes no "
            "attribute for it."
        )
    return QueueDiscMapping(aqm, spec.type, tuple(attrs), tuple(diffs))


def queue_disc(
    queue: Mapping[str, Any],
    rate_bps: float,
    delay_ms: float,
    max_packet_bytes: int = DEFAULT_MAX_PACKET_BYTES,
) -> QueueDiscMapping:
    """The ns-3 queue disc for a resolved `[queue]` table (with its AQM sub-tables) on a
    bottleneck of `rate_bps` and `delay_ms`; `max_packet_bytes`, the largest packet of the
    scenario, tells whether a memory limit can bind. MappingError for an AQM with no
    counterpart."""
    aqm = queue["aqm"]
    if aqm == "droptail":
        mapping = QueueDiscMapping("droptail", QUEUE_DISCS["droptail"], (), ())
    elif aqm == "red":
        mapping = _red(queue, rate_bps, delay_ms)
    elif aqm == "ared":
        mapping = _ared(queue, rate_bps, delay_ms)
    elif aqm == "step":
        mapping = _step(queue)
    elif aqm in TABLES:
        mapping = _tabled(aqm, queue, max_packet_bytes)
    else:
        raise MappingError(
            f"queue.aqm = {aqm!r} has no ns-3 queue disc here (one of {', '.join(QUEUE_DISCS)})"
        )
    size = _from("MaxSize", f"{int(queue['limit_pkts'])}p", "queue.limit_pkts", queue["limit_pkts"])
    diffs = list(mapping.differences)
    if queue.get("limit_bytes", 0):
        diffs.append("`queue.limit_bytes` is not mapped: the ns-3 queue disc counts packets.")
    return QueueDiscMapping(mapping.aqm, mapping.type, (size, *mapping.attributes), tuple(diffs))
