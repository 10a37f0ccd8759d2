"""`aqmlab validate ns3`'s queue-disc mapping: each AQM's ns-3.37 queue disc and its attributes,
taken from the resolved `[queue]` table, the values converted, the differences noted, the
mappings that ns-3 cannot express refused, and the page's description of each.

COBALT, FQ-CoDel, FQ-PIE and FQ-COBALT map from their resolved `[queue.<name>]` tables; the tests
give those tables by hand (`NEW_TABLES`, the values aqmlab resolves by default), and
`test_new_tables_are_what_aqmlab_resolves` checks them against the build."""

from __future__ import annotations

import dataclasses

import pytest
import tomllib

from aqmlab import _core
from aqmlab.engine.scenario import Scenario
from aqmlab.validate import common as validate
from aqmlab.validate.ns3 import page as ns3_page
from aqmlab.validate.ns3 import queue_discs
from aqmlab.validate.ns3 import suite as validate_ns3
from aqmlab.validate.ns3.queue_discs import MappingError, queue_disc

_PIE = {
    "target_ms": 15.0,
    "t_update_ms": 15.0,
    "alpha": 0.125,
    "beta": 1.25,
    "max_burst_ms": 150.0,
    "mean_pkt_bytes": 1000,
    "dq_threshold_bytes": 16384,
    "use_dequeue_rate_estimator": False,
    "use_cap_drop_adjustment": True,
    "use_derandomization": False,
    "ecn_max_p": 0.1,
    "burst_rule": "ns3",
    "short_queue_rule": "ns3",
}
_FQ = {
    "quantum_bytes": 1500,
    "flows": 1024,
    "drop_batch_size": 64,
    "perturbation": 0,
    "set_associative_hash": False,
    "set_ways": 8,
    "memory_limit_bytes": 33554432,
    "ce_threshold_ms": 0.0,
}
_COBALT = {
    "target_ms": 5.0,
    "interval_ms": 100.0,
    "increment": 0.00390625,
    "decrement": 0.000244140625,
    "blue_threshold_ms": 400.0,
    "ce_threshold_ms": 0.0,
    "p_drop_initial": 0.0,
    "ns3_blue_timer_wrap": True,
}
NEW_TABLES = {
    "fq_codel": {"target_ms": 5.0, "interval_ms": 100.0, "mtu_bytes": 1500, **_FQ},
    "fq_pie": {**_PIE, **_FQ},
    "cobalt": _COBALT,
    "fq_cobalt": {**_COBALT, **_FQ},
}
"""The `[queue.<name>]` tables of the four AQMs as aqmlab resolves them by default (fq_pie:
PIE's keys, whose ns-3.37 FqPieQueueDisc defaults are PieQueueDisc's, and the FQ keys);
`test_new_tables_are_what_aqmlab_resolves` checks them against the build."""


def _with_tables(queue: dict, aqm: str, **changes) -> dict:
    """A resolved `[queue]` table running `aqm`, with the four AQMs' tables (changed by
    `changes`, keys of `aqm`'s table) when aqmlab does not resolve them itself."""
    queue = {**queue, "aqm": aqm}
    for name, table in NEW_TABLES.items():
        queue.setdefault(name, dict(table))
    queue[aqm] = {**queue[aqm], **changes}
    return queue


def _queue(aqm: str, **sets) -> dict:
    path = validate_ns3.SCENARIOS[1]
    sc = Scenario.load(path).with_({"queue.aqm": aqm, **sets})
    return sc.get("queue")


def test_red_and_ared_mapping():
    red = queue_disc(_queue("red"), 50e6, 10.0)
    attrs = {a.name: a.value for a in red.attributes}
    assert red.type == "ns3::RedQueueDisc"
    assert attrs["MinTh"] == "100" and attrs["MaxTh"] == "400" and attrs["QW"] == "0.002"
    assert attrs["LInterm"] == "10" and attrs["Gentle"] == "false" and attrs["Wait"] == "false"
    assert attrs["ARED"] == "false" and attrs["LinkBandwidth"] == "50000000bps"
    assert attrs["LinkDelay"] == "10000000ns" and attrs["MaxSize"] == "1000p"
    assert any('spacing` = "none"' in d for d in red.differences)
    wait = queue_disc(_queue("red", **{"queue.red.spacing": "wait"}), 50e6, 10.0)
    assert {a.name: a.value for a in wait.attributes}["Wait"] == "true"
    assert not any("spacing" in d for d in wait.differences)

    ared = {a.name: a.value for a in queue_disc(_queue("ared"), 50e6, 10.0).attributes}
    assert ared["ARED"] == "true" and ared["AdaptMaxP"] == "true" and ared["LInterm"] == "50"
    assert ared["TargetDelay"] == "5000000ns" and ared["Interval"] == "500000000ns"
    assert ared["MinTh"] == "0" and ared["Bottom"] == "0" and ared["Wait"] == "true"
    explicit = queue_disc(
        _queue("ared", **{"queue.ared.q_min_pkts": 50.0, "queue.ared.q_max_pkts": 150.0}),
        50e6,
        10.0,
    )
    attrs = {a.name: a.value for a in explicit.attributes}
    assert attrs["ARED"] == "false" and attrs["AdaptMaxP"] == "true" and attrs["MinTh"] == "50"
    timer = queue_disc(_queue("ared", **{"queue.ared.adapt_at": "timer"}), 50e6, 10.0)
    assert any("adapt_at" in d for d in timer.differences)


def test_pie_codel_droptail_mapping():
    pie = queue_disc(_queue("pie", **{"queue.pie.target_ms": 20.0}), 50e6, 10.0)
    attrs = {a.name: a.value for a in pie.attributes}
    assert pie.type == "ns3::PieQueueDisc"
    assert attrs["QueueDelayReference"] == "20000000ns" and attrs["Tupdate"] == "15000000ns"
    assert attrs["A"] == "0.125" and attrs["B"] == "1.25" and attrs["UseEcn"] == "false"
    assert attrs["MaxBurstAllowance"] == "150000000ns" and attrs["ActiveThreshold"] == "max"
    assert pie.argument().startswith("MaxSize=1000p,MeanPktSize=1000,")
    rfc = queue_disc(_queue("pie", **{"queue.pie.burst_rule": "rfc8033"}), 50e6, 10.0)
    assert any("burst_rule" in d for d in rfc.differences)
    codel = {a.name: a.value for a in queue_disc(_queue("codel"), 50e6, 10.0).attributes}
    assert codel == {
        "MaxSize": "1000p",
        "Target": "5000000ns",
        "Interval": "100000000ns",
        "MinBytes": "1500",
        "UseEcn": "false",
        "UseL4s": "false",
        "CeThreshold": "max",
    }
    drop = queue_disc(_queue("droptail"), 50e6, 10.0)
    assert drop.argument() == "MaxSize=1000p" and drop.type == "ns3::FifoQueueDisc"
    with pytest.raises(MappingError, match="betared"):
        queue_disc(_queue("betared"), 50e6, 10.0)


def _new(aqm: str, limit: int = 1000, ecn: bool = False, packet: int = 1000, **changes):
    queue = _with_tables(_queue("codel"), aqm, **changes)
    queue.update(limit_pkts=limit, ecn=ecn)
    return queue_disc(queue, 50e6, 10.0, packet)


FQ_EXPECTED = {
    "Flows": "1024",
    "DropBatchSize": "64",
    "Perturbation": "0",
    "Quantum": "1500",
    "EnableSetAssociativeHash": "false",
    "SetWays": "8",
    "CeThreshold": "max",
    "UseL4s": "false",
}
COBALT_EXPECTED = {
    "MaxSize": "1000p",
    "Target": "5000000ns",
    "Interval": "100000000ns",
    "UseEcn": "false",
    "Pdrop": "0",
    "Increment": "0.00390625",
    "Decrement": "0.000244140625",
    "BlueThreshold": "400000000ns",
}
PIE_EXPECTED = {
    "MaxSize": "1000p",
    "MeanPktSize": "1000",
    "QueueDelayReference": "15000000ns",
    "Tupdate": "15000000ns",
    "Supdate": "0ns",
    "A": "0.125",
    "B": "1.25",
    "MaxBurstAllowance": "150000000ns",
    "DequeueThreshold": "16384",
    "UseDequeueRateEstimator": "false",
    "UseCapDropAdjustment": "true",
    "UseDerandomization": "false",
    "UseEcn": "false",
    "MarkEcnThreshold": "0.1",
}
NEW_EXPECTED = {
    "cobalt": (
        "ns3::CobaltQueueDisc",
        {**COBALT_EXPECTED, "CeThreshold": "max", "UseL4s": "false"},
    ),
    "fq_cobalt": (
        "ns3::FqCobaltQueueDisc",
        {
            **COBALT_EXPECTED,
            "ns3::CobaltQueueDisc::BlueThreshold": "400000000ns",
            **FQ_EXPECTED,
        },
    ),
    "fq_codel": (
        "ns3::FqCoDelQueueDisc",
        {
            "MaxSize": "1000p",
            "Target": "5000000ns",
            "Interval": "100000000ns",
            "ns3::CoDelQueueDisc::MinBytes": "1500",
            "UseEcn": "false",
            **FQ_EXPECTED,
        },
    ),
    "fq_pie": (
        "ns3::FqPieQueueDisc",
        {
            **PIE_EXPECTED,
            "ns3::PieQueueDisc::MarkEcnThreshold": "0.1",
            "ns3::PieQueueDisc::ActiveThreshold": "max",
            **FQ_EXPECTED,
        },
    ),
}


@pytest.mark.parametrize("aqm", sorted(NEW_EXPECTED))
def test_new_aqm_mapping_has_every_attribute(aqm):
    type_name, expected = NEW_EXPECTED[aqm]
    m = _new(aqm)
    assert m.aqm == aqm and m.type == type_name == queue_discs.QUEUE_DISCS[aqm]
    assert {a.name: a.value for a in m.attributes} == expected
    assert len({a.name for a in m.attributes}) == len(m.attributes)
    assert m.attributes[0].name == "MaxSize"
    # every key aqmlab resolves reaches an attribute, except the memory limit (no ns-3
    # counterpart; it cannot bind at 1000 packets of 1000 B)
    sources = " ".join(a.source for a in m.attributes)
    for key in NEW_TABLES[aqm]:
        if key in ("memory_limit_bytes", "burst_rule", "short_queue_rule", "ns3_blue_timer_wrap"):
            continue
        assert f"`queue.{aqm}.{key}` = " in sources, key
    assert not any("memory" in d or "not mapped:" in d for d in m.differences)
    assert m.argument() == ",".join(f"{k}={v}" for k, v in expected.items())
    if aqm.startswith("fq_"):
        assert any("murmur3" in d for d in m.differences)
        assert any("creates a flow queue" in d for d in m.differences)


def test_new_tables_are_what_aqmlab_resolves():
    assert set(NEW_TABLES) == set(validate_ns3.FQ_AND_COBALT)
    for aqm, table in NEW_TABLES.items():
        text = _core.resolve_scenario(
            f'duration_s = 1.0\n[queue]\naqm = "{aqm}"\n[traffic.schedule]\nkind = "constant"\n'
            "flows = 1\n",
            [],
        )
        assert tomllib.loads(text)["queue"][aqm] == table, aqm


def test_new_aqm_values_are_converted():
    codel = {a.name: a.value for a in _new("fq_codel", target_ms=7.5, interval_ms=250.0,
                                           mtu_bytes=1000, quantum_bytes=300, flows=2048,
                                           drop_batch_size=32, perturbation=17,
                                           ce_threshold_ms=2.5, ecn=True).attributes}  # fmt: skip
    assert codel["Target"] == "7500000ns" and codel["Interval"] == "250000000ns"
    assert codel["ns3::CoDelQueueDisc::MinBytes"] == "1000" and codel["Quantum"] == "300"
    assert codel["Flows"] == "2048" and codel["DropBatchSize"] == "32"
    assert codel["Perturbation"] == "17" and codel["CeThreshold"] == "2500000ns"
    assert codel["UseEcn"] == "true"
    pie = _new("fq_pie", limit=500, target_ms=20.0, ecn_max_p=0.25, set_associative_hash=True,
               set_ways=16)  # fmt: skip
    attrs = {a.name: a.value for a in pie.attributes}
    assert attrs["MaxSize"] == "500p" and attrs["QueueDelayReference"] == "20000000ns"
    assert attrs["MarkEcnThreshold"] == attrs["ns3::PieQueueDisc::MarkEcnThreshold"] == "0.25"
    assert attrs["EnableSetAssociativeHash"] == "true" and attrs["SetWays"] == "16"
    cobalt = {a.name: a.value for a in _new("cobalt", increment=0.01, decrement=0.001,
                                            blue_threshold_ms=100.0).attributes}  # fmt: skip
    assert cobalt["Increment"] == "0.01" and cobalt["Decrement"] == "0.001"
    assert cobalt["BlueThreshold"] == "100000000ns"
    fq_cobalt = {a.name: a.value for a in _new("fq_cobalt", target_ms=2.0).attributes}
    assert fq_cobalt["Target"] == "2000000ns" and fq_cobalt["Pdrop"] == "0"


def test_new_aqm_differences():
    # a memory limit below limit_pkts × the largest packet can bind; ns-3 has none
    small = _new("fq_codel", memory_limit_bytes=500_000)
    assert any("memory_limit_bytes` = 500000 can bind" in d for d in small.differences)
    assert not any(
        "memory" in d for d in _new("fq_codel", memory_limit_bytes=2_000_000).differences
    )
    big_packets = _new("fq_codel", packet=1500, memory_limit_bytes=1_200_000)
    assert any("1500000 B" in d for d in big_packets.differences)
    # CE threshold: CoDel and COBALT mark above it only with ECN; PIE only in L4S mode
    for aqm in ("fq_codel", "cobalt", "fq_cobalt"):
        assert any("only when UseEcn" in d for d in _new(aqm, ce_threshold_ms=1.0).differences)
    for aqm in ("fq_codel", "cobalt"):
        assert not any("UseEcn" in d for d in _new(aqm, ce_threshold_ms=1.0, ecn=True).differences)
    # FqCobaltQueueDisc does not pass UseEcn and CeThreshold on to its flow queues
    assert any("passes only MaxSize" in d for d in _new("fq_cobalt").differences)
    # BLUE's 32-bit timer: ns-3.37's by default, Linux's on request
    assert not any("wrap" in d for d in _new("cobalt").differences)
    assert any(
        "wrap after 4.3 s" in d for d in _new("cobalt", ns3_blue_timer_wrap=False).differences
    )
    assert any("L4S" in d for d in _new("fq_pie", ce_threshold_ms=1.0).differences)
    assert not any("L4S" in d for d in _new("fq_pie").differences)
    pie = _new("fq_pie", burst_rule="rfc8033", mean_pkt_bytes=999.5)
    assert any("burst_rule" in d for d in pie.differences)
    assert any("rounded to 1000" in d for d in pie.differences)
    assert any("staggered" in d for d in pie.differences)
    assert any("Quantum 0" in d for d in _new("fq_cobalt", quantum_bytes=0).differences)
    # a key aqmlab gains is listed, not dropped; a key the mapping reads must be there
    extra = _new("cobalt", new_key=3)
    assert any("`queue.cobalt.new_key` = 3 is not mapped" in d for d in extra.differences)
    queue = _with_tables(_queue("codel"), "cobalt")
    del queue["cobalt"]["increment"]
    with pytest.raises(MappingError, match="queue.cobalt.increment: not in the resolved"):
        queue_disc(queue, 50e6, 10.0)
    with pytest.raises(MappingError, match="not a multiple of queue.fq_pie.set_ways"):
        _new("fq_pie", set_associative_hash=True, flows=1000, set_ways=16)


def test_a_key_is_one_row_of_a_table(monkeypatch):
    spec = queue_discs.TABLES["cobalt"]
    row = queue_discs.Row("Pdrop", "initial_p", queue_discs._real)
    rows = tuple(r for r in spec.rows if r.attribute != "Pdrop") + (row,)
    monkeypatch.setitem(queue_discs.TABLES, "cobalt", dataclasses.replace(spec, rows=rows))
    m = _new("cobalt", initial_p=0.5)
    attrs = {a.name: a for a in m.attributes}
    assert (
        attrs["Pdrop"].value == "0.5" and "`queue.cobalt.initial_p` = 0.5" in attrs["Pdrop"].source
    )
    assert not any("initial_p" in d for d in m.differences)


def test_page_describes_the_new_aqms():
    g = validate_ns3.grid(False)
    rows = [(c, [validate.judge(m, [], []) for m in validate_ns3.METRICS]) for c in g.cases]
    text = ns3_page.page(rows, g, False, {})
    for aqm, (type_name, _) in NEW_EXPECTED.items():
        assert f"**{aqm}**: `{type_name}`" in text
    assert "| ns3::CoDelQueueDisc::MinBytes | `1500` |" in text
    assert "| Quantum | `1500` |" in text
    assert "How ns-3.37's flow-queueing discs work" in text
    assert "with all nine AQMs" in text and "with the five classic AQMs" in text
    assert "| S1 UDP flood fq_cobalt N=100 (25–50 s) | – |" in text
    assert "# 52 runs, several minutes" in text  # the quick grid's runs, both sides
