"""What the reproduction of Chen, Hu & Ji (2011) covers: the paper, its four AQMs and their names,
the statistics it reports, and which experiment file gives each of Figs. 5–7 and the four
experiments of Table 1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TITLE = (
    'Chen, Hu & Ji, "Self-tuning random early detection algorithm to improve performance of '
    'network transmission", Mathematical Problems in Engineering 2011, Article ID 872347: '
    "the model (§2–3, Figs. 3–4) and the simulations (§5, Figs. 5–7, Table 1)"
)

SCHEMES = ("rem", "ared", "pi", "self_tuning_red")
"""The four AQMs in Table 1's row order."""
DISPLAY = {"rem": "REM", "ared": "Adaptive RED", "pi": "PI", "self_tuning_red": "IRED"}
"""Table 1's names; "IRED" is the paper's self-tuning RED."""

TARGET_PKTS = 1500.0
"""§5: "the target queue size is 1500 packets"."""

MEAN, STD, SETTLE, P_MAX_END = "avg_queue_pkts", "std_queue_pkts", "settle_time_s", "p_max_end"
METRICS = (MEAN, STD, SETTLE, P_MAX_END)


@dataclass(frozen=True)
class Source:
    """Where one of the paper's experiments comes from: the experiment file and, for a file
    that holds several, the axis value that picks it."""

    experiment: str
    title: str
    axis: tuple[str, Any] | None = None


SOURCES: dict[str, Source] = {
    "fig5": Source("fig5_6", "Fig. 5: self-tuning RED, N = 200", ("N", 200)),
    "fig6": Source("fig5_6", "Fig. 6: self-tuning RED, N = 1000", ("N", 1000)),
    "fig7": Source("fig7", "Fig. 7: self-tuning RED, 500 flows, 100 more at 50 s"),
    "exp1": Source("table1_exp1", "Table 1, experiment 1: 500 flows + 500 short-lived flows"),
    "exp2": Source("table1_exp2", "Table 1, experiment 2: 500 flows + 50 CBR UDP flows"),
    "exp3a": Source("table1_exp3a", "Table 1, experiment 3: 500 flows + 100 starting at random"),
    "exp3b": Source("table1_exp3b", "Table 1, experiment 3: 600 flows, 100 stopping at random"),
}
"""Every experiment of §5 with published numbers, by the id used in published.csv."""

TABLE1 = ("exp1", "exp2", "exp3a", "exp3b")
FIGURES = ("fig5", "fig6", "fig7")

PARTS: dict[str, dict[int, tuple[str, ...]]] = {
    "figure": {5: ("figures/fig5_6",), 6: ("figures/fig5_6",), 7: ("figures/fig7",)},
    "table": {1: tuple(f"tables/{SOURCES[e].experiment}" for e in TABLE1)},
}
"""The experiment files under experiments/chen2011/ of each figure and table (without
`.toml`). The model's Figs. 3–4 are always made (`model/`)."""
