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
        "sensitivity",
        "§4.3",
        "Parameter sensitivity",
        "25 NewReno flows; each of the AQM's time, rate, packet and dimensionless parameters "
        "halved and doubled, the others at their defaults; the change of the queueing delay "
        "and the goodput against the same seed's run with every default.",
        (Criterion("delay_change", LOWER), Criterion("goodput_change", LOWER)),
    ),
    Section(
        "transport",
        "§5",
        "Transport protocols",
        "TCP-friendly senders with initial windows of 3 and 10, an aggressive sender (CUBIC, "
        "initial window 10), an unresponsive UDP sender alone and beside TCP, and LEDBAT as the "
        "less-than-best-effort sender beside TCP.",
        (Criterion("goodput_mbps", HIGHER), Criterion("probe_rtt_p99_ms", LOWER)),
    ),
    Section(
        "rtt_fairness",
        "§6",
        "Round-trip-time fairness",
        "Two NewReno flows, one with a base RTT of 100 ms and one with 5 to 560 ms; §6.3's "
        "metric is the ratio of their goodputs (the second's over the first's).",
        (Criterion("rtt_unfairness", LOWER), Criterion("goodput_mbps", HIGHER)),
    ),
    Section(
        "burst_absorption",
        "§7",
        "Burst absorption",
        "A long-lived flow with web transfers (Pareto sizes, initial window 10), with bursts "
        "of five 15 kB transfers every second, and with bursty UDP video.",
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
        "5, 25 and 100 long-lived NewReno flows, and flows joining and leaving (10 to 100 and "
        "back), measured over the whole run.",
        (
            Criterion("queue_delay_std_ms", LOWER),
            Criterion("queue_delay_mean_ms", LOWER),
            Criterion("goodput_mbps", HIGHER),
        ),
    ),
    Section(
        "traffic_profiles",
        "§9",
        "Various traffic profiles",
        "Bulk and web traffic; bulk, web, bursty video and two voice calls; CUBIC and "
        "NewReno with web traffic.",
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
        "The AQM on both links of a two-bottleneck chain, with flows across both links and "
        "cross traffic on each.",
        (Criterion("goodput_mbps", HIGHER), Criterion("probe_rtt_p99_ms", LOWER)),
    ),
    Section(
        "ecn",
        "§12",
        "Interaction with ECN",
        "10 NewReno flows without ECN, with ECN at the AQM and every sender, and with ECN at "
        "half of the senders.",
        (
            Criterion("goodput_mbps", HIGHER),
            Criterion("queue_delay_mean_ms", LOWER),
            Criterion("drop_rate", LOWER),
        ),
    ),
    Section(
        "scheduling",
        "§13",
        "Interaction with scheduling",
        "Mixed congestion controls (CUBIC, NewReno, LEDBAT), TCP against a UDP flood, and "
        "flows with base RTTs from 20 to 200 ms: what the queue (a FIFO, or flow queueing) "
        "gives each.",
        (Criterion("jain_fairness", HIGHER), Criterion("probe_rtt_p99_ms", LOWER)),
    ),
)


def section_names() -> list[str]:
    return [s.stem for s in SECTIONS]


def sections(names: list[str] | None) -> list[Section]:
    """The sections named (all when `names` is None), in the RFC's order."""
    if names is None:
        return list(SECTIONS)
    return [s for s in SECTIONS if s.stem in set(names)]
