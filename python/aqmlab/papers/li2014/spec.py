"""What the reproduction of Li et al. (2014) covers: the paper, its eight schemes and their names,
the metrics of its tables, and which experiment file gives each of Tables 1–21."""

from __future__ import annotations

from dataclasses import dataclass

TITLE = (
    'Li, Sun, Zukerman, Liu, Xu, Chan, Chen & Ko, "A comparative simulation study of TCP/AQM '
    'systems for evaluating the potential of neuron-based AQM schemes", Journal of Network and '
    "Computer Applications 41 (2014) 274–299, Tables 1–21"
)

SCHEMES = ("ared", "rem", "pi", "iapi", "neuron_pid", "an_aqm", "fapidnn", "nrl")
"""The eight AQMs in the paper's row order."""
NEURON = ("neuron_pid", "an_aqm", "fapidnn", "nrl")
TRADITIONAL = ("ared", "rem", "pi")
DISPLAY = {
    "ared": "ARED",
    "rem": "REM",
    "pi": "PI",
    "iapi": "IAPI",
    "neuron_pid": "Neuron PID",
    "an_aqm": "AN-AQM",
    "fapidnn": "FAPIDNN",
    "nrl": "NRL",
}

QUEUE_METRICS = ("link_efficiency", "drop_rate", "avg_queue_pkts", "std_queue_pkts")
DELAY_METRICS = ("delay_mean_ms", "delay_std_ms")
TRANSIENT = "transient_s"
"""Our transient time (`settle_time_s`, docs/metrics.md; infinite when the queue never
settles); the paper reads it off its figures."""

PAYLOAD_BYTES = 1000
"""§3.1: "the packet size is 1000 bytes" — the size by which the paper turns the link capacity
into packets per second for its link efficiency."""
WIRE_BYTES = 1040
"""A TCP data packet on the wire in ns-2: the 1000-byte packetSize_ plus 40 bytes of TCP/IP
header."""


@dataclass(frozen=True)
class TableSource:
    """Where one of the paper's tables comes from: the experiment, the port and the metrics."""

    experiment: str
    port: str | None
    """The port's name for a table of the second router; None for the first measured port."""
    metrics: tuple[str, ...]
    target_pkts: float = 300.0


TABLES: dict[int, TableSource] = {
    **{n: TableSource(f"table{n}", None, QUEUE_METRICS) for n in (1, 2, 5, 6, 7, 8)},
    **{n: TableSource(f"table{n}", None, QUEUE_METRICS, 50.0) for n in (3, 4)},
    **{n: TableSource(f"table{n}", None, QUEUE_METRICS) for n in range(9, 15)},
    15: TableSource("table15_16", None, QUEUE_METRICS),
    16: TableSource("table15_16", "D->E", QUEUE_METRICS),
    17: TableSource("table17_18", None, QUEUE_METRICS),
    18: TableSource("table17_18", "D->E", QUEUE_METRICS),
    19: TableSource("table2", None, DELAY_METRICS),
    20: TableSource("table9", None, DELAY_METRICS),
    21: TableSource("table21", None, DELAY_METRICS),
}
"""Every table of the paper. Tables 19 and 20 report the delay of Table 2's and Table 9's runs
(§3.9), so they share those experiments and their stored runs."""

PARTS: dict[int, tuple[str, ...]] = {
    n: (f"tables/{source.experiment}",) for n, source in TABLES.items()
}
"""Each table's experiment file under experiments/li2014/ (without `.toml`)."""

TABLE_TITLES = {
    1: "500 TCP connections, target 300 packets",
    2: "1500 TCP connections, target 300 packets",
    3: "500 TCP connections, target 50 packets",
    4: "800 TCP connections, target 50 packets",
    5: "800 TCP connections, 15 Mb/s bottleneck",
    6: "800 TCP connections, 115 Mb/s bottleneck",
    7: "800 TCP connections, round-trip propagation 20–140 ms",
    8: "800 TCP connections, round-trip propagation 150–250 ms",
    9: "connections increasing abruptly from 500 to 1500",
    10: "connections decreasing abruptly from 1500 to 500",
    11: "connections increasing randomly from 300 to 1500",
    12: "connections decreasing randomly from 1500 to 300",
    13: "800 TCP connections, round-trip propagation 500 ms",
    14: "800 TCP connections with 400 ON/OFF UDP flows",
    15: "two bottlenecks, N = 500, N1 = 200, N2 = 200: router B",
    16: "two bottlenecks, N = 500, N1 = 200, N2 = 200: router D",
    17: "two bottlenecks, N = 100, N1 = 800, N2 = 400: router B",
    18: "two bottlenecks, N = 100, N1 = 800, N2 = 400: router D",
    19: "packet delay, 1500 TCP connections, target 300 (Table 2's runs)",
    20: "packet delay, connections increasing abruptly from 500 to 1500 (Table 9's runs)",
    21: "packet delay, 1500 TCP connections, round-trip propagation 2 µs",
}
