"""The Chen, Hu & Ji (2011, §5) cases of `aqmlab validate ns2`: the self-tuning-RED paper's
dumbbell with ECN, N TCP Reno flows through a 150 Mb/s, 30 ms bottleneck whose router runs RED
or gentle RED (q_min 750, q_max 2250, p_max 0.1, w 0.00048814, 7500-packet buffer), and, as a
family of its own (`ChenTunedCase`), the paper's Adaptive RED and self-tuning RED (§5: p_max
0.01 to start, thresholds 750/2250; ARED's α 0.01, β 0.9, w 0.000014305, 2 s; self-tuning
RED's δt 2 s, w 0.00048814, q_target 1500, d 150 ms).

The ns-2 side is `benches/validation/ns2/chen2011_dumbbell.tcl` (ARED and self-tuning RED:
`chen2011_tuned_red.tcl`, which sets up the bottleneck's Queue/RED and runs that script), the
aqmlab side `experiments/chen2011/dumbbell.toml`. Both measure what the Li et al. (2014) cases
measure (see `validate_ns2`), plus `mark_rate`: CE marks / arrivals at the bottleneck port
(ns-2: its queue monitor's `pmarks_`, the departures carrying CE; aqmlab: the port's marks).
The tuned family also records p_max: its final value and, per period of 2 s, the mean q_avg,
the queue's mean, minimum and maximum, and p_max after the period's update.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .validate import ROOT

SCRIPT = ROOT / "benches" / "validation" / "ns2" / "chen2011_dumbbell.tcl"
TUNED_SCRIPT = SCRIPT.with_name("chen2011_tuned_red.tcl")
SCENARIO = ROOT / "experiments" / "chen2011" / "dumbbell.toml"

FLOWS = (200, 1000)
"""N of the full grid (§5.1's two extreme cases)."""


@dataclass(frozen=True)
class ChenCase:
    """One Chen 2011 scenario: RED or gentle RED with `flows` ECN-capable Reno flows."""

    family: ClassVar[str] = "chen2011"

    gentle: bool
    flows: int
    duration_s: float = 100.0

    @property
    def aqm(self) -> str:
        return "gentle_red" if self.gentle else "red"

    @property
    def case_id(self) -> str:
        return f"chen2011-{'gred' if self.gentle else 'red'}-n{self.flows}-d{self.duration_s:g}"

    @property
    def label(self) -> str:
        name = "gentle RED" if self.gentle else "RED"
        return f"Chen 2011 {name} N={self.flows} ECN ({self.duration_s:g} s)"

    @property
    def window_start_s(self) -> float:
        return self.duration_s / 2


def quick_cases() -> tuple[ChenCase, ...]:
    """Gentle RED with N = 200 for 30 s (about 7 s of ns-2 here)."""
    return (ChenCase(True, 200, 30.0),)


def full_cases() -> tuple[ChenCase, ...]:
    """RED and gentle RED at N = 200 and 1000, 100 s each."""
    return tuple(ChenCase(gentle, n) for n in FLOWS for gentle in (False, True))


def ns2_args(case: ChenCase, seed: int, sample_ms: float, start_jitter_s: float) -> list[str]:
    """The key=value arguments of chen2011_dumbbell.tcl for one run (the rest of the scenario
    is the script's defaults)."""
    values: dict[str, Any] = {
        "gentle": int(case.gentle),
        "flows": case.flows,
        "duration_s": f"{case.duration_s:g}",
        "window_start_s": f"{case.window_start_s:g}",
        "sample_ms": f"{sample_ms:g}",
        "start_jitter_s": f"{start_jitter_s:g}",
        "seed": seed,
    }
    return [f"{k}={v}" for k, v in values.items()]


def aqmlab_overrides(
    case: ChenCase, sample_ms: float, start_jitter_s: float
) -> list[tuple[str, str]]:
    """`--set` style overrides of experiments/chen2011/dumbbell.toml for one case."""
    return [
        ("queue.aqm", "red"),
        ("queue.red.gentle", "true" if case.gentle else "false"),
        ("traffic.schedule.flows", str(case.flows)),
        ("duration_s", f"{case.duration_s:g}"),
        ("measure.window", "second_half"),
        ("measure.sample_interval_ms", f"{sample_ms:g}"),
        ("traffic.start_jitter_s", f"{start_jitter_s:g}"),
    ]


# ---------------------------------------------------------------------------------------------
# Adaptive RED and self-tuning RED

TUNED_AQMS = {"ared": "ARED", "self_tuning_red": "self-tuning RED"}
"""The tuned family's AQMs (chen2011_tuned_red.tcl's `aqm`, aqmlab's `queue.aqm`) and their
names in labels."""
TUNED_SEEDS = {"self_tuning_red": (1, 2, 3, 4)}
"""Seeds of the tuned cases that do not run the grid's: self-tuning RED's first periods decide
where its p_max goes, so it runs four."""
PERIOD_S = 2.0
"""ARED's interval and self-tuning RED's δt (§5): the period of the p_max series."""


Q_TILDE_OVER = ("arrivals", "time")
"""How the ns-2 side of self-tuning RED averages q_avg into q~ (chen2011_tuned_red.tcl's
`q_tilde_over`): over arrivals, as Algorithm 1 and aqmlab do, or over time samples."""


@dataclass(frozen=True)
class ChenTunedCase:
    """One Chen 2011 scenario with the paper's Adaptive RED or self-tuning RED (`aqm`) and
    `flows` ECN-capable Reno flows; `seeds`, when given, replaces the grid's seeds.
    `q_tilde_over` (self-tuning RED): how ns-2's Tcl procedure forms q~; aqmlab always averages
    over arrivals."""

    family: ClassVar[str] = "chen2011_tuned"

    aqm: str
    flows: int
    duration_s: float = 100.0
    seeds: tuple[int, ...] = ()
    q_tilde_over: str = "arrivals"

    def __post_init__(self) -> None:
        if self.aqm not in TUNED_AQMS:
            raise ValueError(f"aqm: must be one of {', '.join(TUNED_AQMS)}, got {self.aqm!r}")
        if self.q_tilde_over not in Q_TILDE_OVER or (
            self.aqm == "ared" and self.q_tilde_over != "arrivals"
        ):
            raise ValueError(
                f"q_tilde_over: must be arrivals or (self-tuning RED) time, got "
                f"{self.q_tilde_over!r}"
            )

    @property
    def case_id(self) -> str:
        short = "ared" if self.aqm == "ared" else "stred"
        over = "" if self.q_tilde_over == "arrivals" else f"-{self.q_tilde_over}"
        return f"chen2011-{short}-n{self.flows}-d{self.duration_s:g}{over}"

    @property
    def label(self) -> str:
        over = "" if self.q_tilde_over == "arrivals" else ", ns-2's q~ over time"
        name = TUNED_AQMS[self.aqm]
        return f"Chen 2011 {name} N={self.flows} ECN ({self.duration_s:g} s{over})"

    @property
    def window_start_s(self) -> float:
        return self.duration_s / 2


def tuned_full_cases() -> tuple[ChenTunedCase, ...]:
    """ARED (the grid's seeds) and self-tuning RED (`TUNED_SEEDS`) at N = 200 and 1000, 100 s;
    self-tuning RED again with ns-2's q~ a mean over time."""
    cases = tuple(
        ChenTunedCase(aqm, n, seeds=TUNED_SEEDS.get(aqm, ())) for aqm in TUNED_AQMS for n in FLOWS
    )
    seeds = TUNED_SEEDS["self_tuning_red"]
    return cases + tuple(
        ChenTunedCase("self_tuning_red", n, seeds=seeds, q_tilde_over="time") for n in FLOWS
    )


def tuned_ns2_args(
    case: ChenTunedCase, seed: int, sample_ms: float, start_jitter_s: float
) -> list[str]:
    """The key=value arguments of chen2011_tuned_red.tcl for one run: its `aqm` (and
    `q_tilde_over` where not the default), then chen2011_dumbbell.tcl's (gentle, w and linterm
    are the wrapper's to set)."""
    values: dict[str, Any] = {"aqm": case.aqm}
    if case.q_tilde_over != "arrivals":
        values["q_tilde_over"] = case.q_tilde_over
    values |= {
        "flows": case.flows,
        "duration_s": f"{case.duration_s:g}",
        "window_start_s": f"{case.window_start_s:g}",
        "sample_ms": f"{sample_ms:g}",
        "start_jitter_s": f"{start_jitter_s:g}",
        "seed": seed,
    }
    return [f"{k}={v}" for k, v in values.items()]


def tuned_overrides(
    case: ChenTunedCase, sample_ms: float, start_jitter_s: float
) -> list[tuple[str, str]]:
    """`--set` style overrides of experiments/chen2011/dumbbell.toml (whose [queue.ared] and
    [queue.self_tuning_red] hold §5's parameters) for one case."""
    return [
        ("queue.aqm", case.aqm),
        ("traffic.schedule.flows", str(case.flows)),
        ("duration_s", f"{case.duration_s:g}"),
        ("measure.window", "second_half"),
        ("measure.sample_interval_ms", f"{sample_ms:g}"),
        ("traffic.start_jitter_s", f"{start_jitter_s:g}"),
    ]


TUNED_KEYS = ("p_max_final", "p_max_min", "p_max_max", "periods", "periods_skipped")
"""What chen2011_tuned_red.tcl adds to the base script's block of results."""
PERIOD_FIELDS = ("t_s", "q_avg_mean", "queue_mean", "queue_min", "queue_max", "p_max")
"""One `period` line of chen2011_tuned_red.tcl, and one entry of a run's `periods`."""


def parse_periods(text: str) -> list[dict[str, float]]:
    """The `period <t> <mean q_avg> <mean queue> <min> <max> <p_max>` lines of an ns-2 run;
    ValueError (one line) for a malformed one."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0] != "period":
            continue
        if len(parts) != 1 + len(PERIOD_FIELDS):
            raise ValueError(f"ns-2 output: malformed period line {line.strip()!r}")
        try:
            out.append(dict(zip(PERIOD_FIELDS, (float(x) for x in parts[1:]), strict=True)))
        except ValueError:
            raise ValueError(f"ns-2 output: malformed period line {line.strip()!r}") from None
    return out


def aqmlab_periods(ts: Any, period_s: float = PERIOD_S) -> list[dict[str, float]]:
    """The same series from an aqmlab time series (columns t_s, queue_pkts, aqm_q_avg,
    aqm_p_max): per period (t − period_s, t], the mean of q_avg over the samples (a mean over
    time, where ns-2's q~ weighs them by arrivals), the queue's mean and extremes, and p_max
    after the update at t (aqmlab's comes with the first arrival after t): the first sample
    after t, or the last one at the end of the run."""
    out = []
    t_end = float(ts["t_s"].max())
    k = 1
    eps = 1e-9
    while k * period_s <= t_end + eps:
        t = k * period_s
        part = ts[(ts["t_s"] > t - period_s + eps) & (ts["t_s"] <= t + eps)]
        after = ts[ts["t_s"] > t + eps]["aqm_p_max"]
        k += 1
        if part.empty:
            continue
        q = part["queue_pkts"]
        out.append(
            {
                "t_s": t,
                "q_avg_mean": float(part["aqm_q_avg"].mean()),
                "queue_mean": float(q.mean()),
                "queue_min": float(q.min()),
                "queue_max": float(q.max()),
                "p_max": float(after.iloc[0] if not after.empty else part["aqm_p_max"].iloc[-1]),
            }
        )
    return out


def aqmlab_extra(result: Any) -> dict[str, Any]:
    """p_max at the end of an aqmlab run, and its period series."""
    ts = result.timeseries
    periods = aqmlab_periods(ts)
    p = [e["p_max"] for e in periods]
    summary = {
        "p_max_final": float(ts["aqm_p_max"].iloc[-1]),
        "p_max_min": min(p, default=math.nan),
        "p_max_max": max(p, default=math.nan),
    }
    return {"summary": summary, "periods": periods}


def p_max_table(
    cases: Sequence[ChenTunedCase],
    seeds_of: Callable[[Any], Sequence[int]],
    read: Callable[[ChenTunedCase, int, str], dict[str, Any] | None],
) -> str:
    """Seed by seed, ns-2 / aqmlab: the window's metrics, the mark rate and the final p_max,
    under a line saying so; `read(case, seed, side)` is a stored run or None."""
    columns = (
        ("link efficiency", "link_efficiency", ".4f"),
        ("average queue (pkts)", "avg_queue_pkts", ".1f"),
        ("queue STD (pkts)", "std_queue_pkts", ".1f"),
        ("drop rate", "drop_rate", ".3%"),
        ("mark rate", "mark_rate", ".3%"),
        ("mean delay (ms)", "delay_mean_ms", ".1f"),
        ("final p_max", "p_max_final", ".3g"),
    )
    lines = [
        "ARED and self-tuning RED seed by seed (ns-2 / aqmlab), with p_max at the end:",
        "",
        "| case | seed | " + " | ".join(name for name, _, _ in columns) + " |",
        "|---|---:|" + "---|" * len(columns),
    ]

    def cell(runs: list[dict[str, Any] | None], key: str, form: str) -> str:
        vals = []
        for run in runs:
            v = math.nan if run is None else float(run["summary"].get(key, math.nan))
            vals.append("–" if not math.isfinite(v) else format(v, form))
        return " / ".join(vals)

    for case in cases:
        for seed in seeds_of(case):
            runs = [read(case, seed, side) for side in ("ns2", "aqmlab")]
            cells = " | ".join(cell(runs, key, form) for _, key, form in columns)
            lines.append(f"| {case.label} | {seed} | {cells} |")
    return "\n".join(lines)
