"""The sections of RFC 7928 (Characterization Guidelines for AQM) that `aqmlab evaluate` runs:
one experiment file each under `experiments/rfc7928/`, how the report reads it, and the
criteria that rank the AQMs in it (docs/evaluate.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Criterion:
    """One ranking criterion: a per-run metric (`aqmlab.evaluate.metrics.METRICS`), averaged
    over the section's cases and seeds, and whether less or more is better."""

    metric: str
    better: str  # "min" or "max"


@dataclass(frozen=True)
class Section:
    """One section of RFC 7928 and its experiment file."""

    stem: str
    rfc: str
    title: str
    reading: str
    criteria: tuple[Criterion, ...]


LOWER, HIGHER = "min", "max"

SECTIONS: tuple[Section, ...] = (
    Section(
        "packet_sizes",
        "§4.4",
        "Packet sizes and congestion notification",
        "§8.2.2's mild congestion with half the flows sending 500-byte packets and half 1500-"
        "byte ones; §6.3's ratio of the small-packet flows' goodput over the large-packet "
        "flows'.",
        (Criterion("category_imbalance", LOWER), Criterion("goodput_mbps", HIGHER)),
    ),
    Section(
        "ecn",
        "§4.5",
        "Interaction with ECN",
        "§6.2's RTT-fairness test (two bulk NewReno flows, one at 100 ms, one at 5 to 560 ms) "
        "without ECN, and with ECN at the AQM and both senders, as §4.5 suggests.",
        (
            Criterion("goodput_mbps", HIGHER),
            Criterion("queue_delay_mean_ms", LOWER),
            Criterion("category_imbalance", LOWER),
            Criterion("drop_rate", LOWER),
        ),
    ),
    Section(
        "scheduling",
        "§4.6",
        "Interaction with scheduling",
        "Our tests (§4.6 asks for a discussion): mixed congestion controls (CUBIC, NewReno, "
        "LEDBAT), TCP against a UDP flood, and flows with base RTTs from 20 to 200 ms: what the "
        "queue (a FIFO, or flow queueing) gives each.",
        (Criterion("jain_fairness", HIGHER), Criterion("probe_rtt_p99_ms", LOWER)),
    ),
    Section(
        "transport",
        "§5",
        "Transport protocols",
        "A bulk NewReno flow with an initial window of 3 (§5.1.1); the same with 50-packet "
        "transfers of initial window 10 (§5.1.2); a bulk CUBIC flow (§5.2); UDP above the "
        "capacity alone and at 6 Mb/s beside NewReno (§5.3); LEDBAT beside NewReno (§5.4).",
        (Criterion("goodput_mbps", HIGHER), Criterion("queue_delay_mean_ms", LOWER)),
    ),
    Section(
        "rtt_fairness",
        "§6",
        "Round-trip-time fairness",
        "Two bulk NewReno flows, category I with a base RTT of 100 ms and category II with 5 "
        "to 560 ms (§6.2); §6.3's ratio of their goodputs (II over I).",
        (Criterion("category_imbalance", LOWER), Criterion("goodput_mbps", HIGHER)),
    ),
    Section(
        "burst_absorption",
        "§7",
        "Burst absorption",
        "§7.2's four mixes of web pages (6 transfers of 17 kB with an initial window of 10 "
        "every 2 s), bursty UDP video, UDP CBR and a bulk NewReno flow.",
        (
            Criterion("fct_mean_s", LOWER),
            Criterion("probe_rtt_p99_ms", LOWER),
            Criterion("goodput_mbps", HIGHER),
        ),
    ),
    Section(
        "stability",
        "§8",
        "Stability",
        "Mild, medium and heavy congestion by §8.2.1's definition (41, 91 and 128 bulk NewReno "
        "flows), the three levels in turn every 20 s (§8.2.5), and the bottleneck alternating "
        "between 100 and 10 Mb/s every 20 s and every 100 ms under mild load (§8.2.6's two "
        "experiments), over the whole run.",
        (
            Criterion("queue_delay_mean_ms", LOWER),
            Criterion("queue_delay_std_ms", LOWER),
            Criterion("link_efficiency", HIGHER),
        ),
    ),
    Section(
        "sensitivity",
        "§8.3",
        "Parameter sensitivity",
        "Mild congestion (41 bulk NewReno flows); each of the AQM's time, rate, packet and "
        "dimensionless parameters halved and doubled, the others at their defaults; the change "
        "of the queueing delay and the goodput against the same seed's run with every default.",
        (Criterion("delay_change", LOWER), Criterion("goodput_change", LOWER)),
    ),
    Section(
        "traffic_profiles",
        "§9",
        "Various traffic profiles",
        "§9.1's smallest mix (a voice call both ways, web pages, CBR, bursty video, 5 bulk "
        "flows) and §9.2's mild congestion in both directions with the AQM on both.",
        (
            Criterion("goodput_mbps", HIGHER),
            Criterion("probe_rtt_p99_ms", LOWER),
            Criterion("fct_mean_s", LOWER),
        ),
    ),
    Section(
        "multi_aqm",
        "§10",
        "Multi-AQM scenario",
        "The AQM on both links of a chain, mild congestion split between flows crossing both "
        "AQMs and flows crossing the second.",
        (
            Criterion("goodput_mbps", HIGHER),
            Criterion("queue_delay_mean_ms", LOWER),
            Criterion("probe_rtt_p99_ms", LOWER),
        ),
    ),
)
"""The sections in the RFC's order."""


def section_names() -> list[str]:
    return [s.stem for s in SECTIONS]


def sections(names: list[str] | None) -> list[Section]:
    """The sections named (all when `names` is None), in the RFC's order."""
    if names is None:
        return list(SECTIONS)
    return [s for s in SECTIONS if s.stem in set(names)]
