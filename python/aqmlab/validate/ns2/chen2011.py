"""The Chen, Hu & Ji (2011, §5) cases of `aqmlab validate ns2`: the self-tuning-RED paper's
dumbbell with ECN, N TCP Reno flows through a 150 Mb/s, 30 ms bottleneck whose router runs RED
or gentle RED (q_min 750, q_max 2250, p_max 0.1, w 0.00048814, 7500-packet buffer), and, as a
family of its own (`ChenTunedCase`), the paper's Adaptive RED and self-tuning RED (§5: p_max
0.01 to start, thresholds 750/2250; ARED's α 0.01, β 0.9, w 0.000014305, 2 s; self-tuning
RED's δt 2 s, w 0.00048814, q_target 1500, d 150 ms), and as a third (`ChenRemPiCase`) its REM
(φ 1.001, α 0.1, γ 0.001, 2 ms) and PI (a 1.822e-5, b 1.816e-5, 170 Hz), target 1500, marking.

The ns-2 side is `validation/ns2/chen2011_dumbbell.tcl` (ARED and self-tuning RED:
`chen2011_tuned_red.tcl`, which sets up the bottleneck's Queue/RED and runs that script; REM
and PI: `chen2011_rem_pi.tcl`, which swaps it for Queue/REM or Queue/PI), the
aqmlab side `experiments/chen2011/dumbbell.toml`. Both measure what the Li et al. (2014) cases
measure (see `validate_ns2`), plus `mark_rate`: CE marks / arrivals at the bottleneck port
(ns-2: its queue monitor's `pmarks_`, the departures carrying CE; aqmlab: the port's marks).
The tuned family also records p_max: its final value and, per period of 2 s, the mean q_avg,
the queue's mean, minimum and maximum, and p_max after the period's update. The REM/PI family
records a trace of the queue and the AQM's probability every 100 ms over the whole run, from
which the page measures how the queue swings (`oscillation`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...data import EXPERIMENTS, VALIDATION

SCRIPT = VALIDATION / "ns2" / "chen2011_dumbbell.tcl"
TUNED_SCRIPT = SCRIPT.with_name("chen2011_tuned_red.tcl")
SCENARIO = EXPERIMENTS / "chen2011" / "dumbbell.toml"

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


def _run_args(case: Any, seed: int, sample_ms: float, start_jitter_s: float) -> dict[str, Any]:
    """The key=value arguments of chen2011_dumbbell.tcl that every Chen case gives its script
    (a wrapper passes them on): flows, run length, window, sampling, start times, seed."""
    return {
        "flows": case.flows,
        "duration_s": f"{case.duration_s:g}",
        "window_start_s": f"{case.window_start_s:g}",
        "sample_ms": f"{sample_ms:g}",
        "start_jitter_s": f"{start_jitter_s:g}",
        "seed": seed,
    }


def _run_overrides(case: Any, sample_ms: float, start_jitter_s: float) -> list[tuple[str, str]]:
    """The `--set` overrides of experiments/chen2011/dumbbell.toml every Chen case makes: the
    same flows, run length, window, sampling and start times as its ns-2 run."""
    return [
        ("traffic.schedule.flows", str(case.flows)),
        ("duration_s", f"{case.duration_s:g}"),
        ("measure.window", "second_half"),
        ("measure.sample_interval_ms", f"{sample_ms:g}"),
        ("traffic.start_jitter_s", f"{start_jitter_s:g}"),
    ]


def ns2_args(case: ChenCase, seed: int, sample_ms: float, start_jitter_s: float) -> list[str]:
    """The key=value arguments of chen2011_dumbbell.tcl for one run (the rest of the scenario
    is the script's defaults)."""
    values = {"gentle": int(case.gentle)} | _run_args(case, seed, sample_ms, start_jitter_s)
    return [f"{k}={v}" for k, v in values.items()]


def aqmlab_overrides(
    case: ChenCase, sample_ms: float, start_jitter_s: float
) -> list[tuple[str, str]]:
    """`--set` style overrides of experiments/chen2011/dumbbell.toml for one case."""
    return [
        ("queue.aqm", "red"),
        ("queue.red.gentle", "true" if case.gentle else "false"),
        *_run_overrides(case, sample_ms, start_jitter_s),
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
    values |= _run_args(case, seed, sample_ms, start_jitter_s)
    return [f"{k}={v}" for k, v in values.items()]


def tuned_overrides(
    case: ChenTunedCase, sample_ms: float, start_jitter_s: float
) -> list[tuple[str, str]]:
    """`--set` style overrides of experiments/chen2011/dumbbell.toml (whose [queue.ared] and
    [queue.self_tuning_red] hold §5's parameters) for one case."""
    return [("queue.aqm", case.aqm), *_run_overrides(case, sample_ms, start_jitter_s)]


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


WINDOW_COLUMNS = (
    ("link efficiency", "link_efficiency", ".4f"),
    ("average queue (pkts)", "avg_queue_pkts", ".1f"),
    ("queue STD (pkts)", "std_queue_pkts", ".1f"),
    ("drop rate", "drop_rate", ".3%"),
    ("mark rate", "mark_rate", ".3%"),
    ("mean delay (ms)", "delay_mean_ms", ".1f"),
)
"""The window's metrics in the seed-by-seed tables: (header, key, format)."""

SIDES = ("ns2", "aqmlab")
"""The two sides of a run, in the order the tables show them."""


def _seed_table(
    title: str,
    columns: Sequence[tuple[str, str, str]],
    cases: Sequence[Any],
    seeds_of: Callable[[Any], Sequence[int]],
    values: Callable[[Any, int, str], dict[str, Any]],
) -> str:
    """`title`, then one row per case and seed with each column's value on the ns-2 side and
    the aqmlab side (`values(case, seed, side)`: key -> a number, or a text shown as it is),
    "–" where a value is missing or not finite."""

    def shown(x: Any, form: str) -> str:
        if isinstance(x, str):
            return x
        return format(float(x), form) if math.isfinite(float(x)) else "–"

    lines = [
        title,
        "",
        "| case | seed | " + " | ".join(name for name, _, _ in columns) + " |",
        "|---|---:|" + "---|" * len(columns),
    ]
    for case in cases:
        for seed in seeds_of(case):
            runs = [values(case, seed, side) for side in SIDES]
            cells = [
                " / ".join(shown(v.get(key, math.nan), form) for v in runs)
                for _, key, form in columns
            ]
            lines.append(f"| {case.label} | {seed} | {' | '.join(cells)} |")
    return "\n".join(lines)


def p_max_table(
    cases: Sequence[ChenTunedCase],
    seeds_of: Callable[[Any], Sequence[int]],
    read: Callable[[ChenTunedCase, int, str], dict[str, Any] | None],
) -> str:
    """Seed by seed, ns-2 / aqmlab: the window's metrics, the mark rate and the final p_max,
    under a line saying so; `read(case, seed, side)` is a stored run or None."""

    def values(case: ChenTunedCase, seed: int, side: str) -> dict[str, Any]:
        run = read(case, seed, side)
        return {} if run is None else dict(run["summary"])

    return _seed_table(
        "ARED and self-tuning RED seed by seed (ns-2 / aqmlab), with p_max at the end:",
        (*WINDOW_COLUMNS, ("final p_max", "p_max_final", ".3g")),
        cases,
        seeds_of,
        values,
    )


# ---------------------------------------------------------------------------------------------
# REM and PI

REM_PI_SCRIPT = SCRIPT.with_name("chen2011_rem_pi.tcl")
REM_PI_AQMS = {"rem": "REM", "pi": "PI"}
"""The REM/PI family's AQMs (chen2011_rem_pi.tcl's `aqm`, aqmlab's `queue.aqm`) and their names
in labels."""
REM_PI_FLOWS = (500, 1000)
"""N of the REM/PI cases: the chen2011 reproduction's 500 long-lived flows, and 1000."""
TRACE_MS = 100.0
"""Spacing of the queue and probability trace each REM/PI run stores (whole run)."""


@dataclass(frozen=True)
class ChenRemPiCase:
    """One Chen 2011 scenario with §5's REM or PI (`aqm`), ECN marking on, and `flows`
    ECN-capable Reno flows: ns-2 runs chen2011_rem_pi.tcl (Queue/REM with markpkts_ true,
    Queue/PI with setbit_ true), aqmlab the scenario's [queue.rem] or [queue.pi]."""

    family: ClassVar[str] = "chen2011_rem_pi"

    aqm: str
    flows: int
    duration_s: float = 100.0

    def __post_init__(self) -> None:
        if self.aqm not in REM_PI_AQMS:
            raise ValueError(f"aqm: must be one of {', '.join(REM_PI_AQMS)}, got {self.aqm!r}")

    @property
    def case_id(self) -> str:
        return f"chen2011-{self.aqm}-n{self.flows}-d{self.duration_s:g}"

    @property
    def label(self) -> str:
        return f"Chen 2011 {REM_PI_AQMS[self.aqm]} N={self.flows} ECN ({self.duration_s:g} s)"

    @property
    def window_start_s(self) -> float:
        return self.duration_s / 2


def rem_pi_full_cases() -> tuple[ChenRemPiCase, ...]:
    """REM and PI at N = 500 and 1000, 100 s."""
    return tuple(ChenRemPiCase(aqm, n) for aqm in REM_PI_AQMS for n in REM_PI_FLOWS)


def rem_pi_ns2_args(
    case: ChenRemPiCase, seed: int, sample_ms: float, start_jitter_s: float
) -> list[str]:
    """The key=value arguments of chen2011_rem_pi.tcl for one run: its `aqm` and `trace_ms`
    (q_ref is the script's 1500, §5's), then chen2011_dumbbell.tcl's."""
    values = {"aqm": case.aqm, "trace_ms": f"{TRACE_MS:g}"}
    values |= _run_args(case, seed, sample_ms, start_jitter_s)
    return [f"{k}={v}" for k, v in values.items()]


def rem_pi_overrides(
    case: ChenRemPiCase, sample_ms: float, start_jitter_s: float
) -> list[tuple[str, str]]:
    """`--set` style overrides of experiments/chen2011/dumbbell.toml (whose [queue.rem] and
    [queue.pi] hold §5's parameters, q_ref 1500) for one case."""
    return [("queue.aqm", case.aqm), *_run_overrides(case, sample_ms, start_jitter_s)]


def parse_trace(text: str) -> list[list[float]]:
    """The `trace <t> <queue> <prob>` lines of an ns-2 run, as [t, queue, p] rows; ValueError
    (one line) for a malformed one."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0] != "trace":
            continue
        try:
            if len(parts) != 4:
                raise ValueError
            out.append([float(x) for x in parts[1:]])
        except ValueError:
            raise ValueError(f"ns-2 output: malformed trace line {line.strip()!r}") from None
    return out


def aqmlab_trace(ts: Any, trace_ms: float = TRACE_MS) -> list[list[float]]:
    """The same trace from an aqmlab time series (columns t_s, queue_pkts, aqm_p): the samples
    at the multiples of trace_ms (the series' own samples, taken every sample interval)."""
    step = trace_ms / 1000.0
    k = (ts["t_s"] / step).round()
    on_grid = ts[((ts["t_s"] - k * step).abs() < 1e-6) & (k >= 1)]
    return [
        [float(t), float(q), float(p)]
        for t, q, p in zip(on_grid["t_s"], on_grid["queue_pkts"], on_grid["aqm_p"], strict=True)
    ]


def aqmlab_rem_pi_extra(result: Any) -> dict[str, Any]:
    """The queue and probability trace of an aqmlab run."""
    return {"trace": aqmlab_trace(result.timeseries)}


def oscillation(trace: Sequence[Sequence[float]], start_s: float) -> dict[str, float]:
    """How the queue of a trace ([t, queue, p] rows, evenly spaced) swings from `start_s` on:
    its 5th and 95th percentiles, the fraction of samples with the queue empty, the mean p,
    and the period of its strongest oscillation: the lag of the first maximum of the queue's
    autocorrelation after the autocorrelation has turned negative, with the autocorrelation
    there (`acf_peak`; NaN period when it never turns negative or has no maximum after)."""
    rows = [r for r in trace if r[0] >= start_s - 1e-9]
    nan = math.nan
    out = {
        "q_p05": nan,
        "q_p95": nan,
        "empty_fraction": nan,
        "p_mean": nan,
        "period_s": nan,
        "acf_peak": nan,
    }
    if len(rows) < 3:
        return out
    q = sorted(r[1] for r in rows)
    n = len(q)
    out["q_p05"] = _percentile(q, 0.05)
    out["q_p95"] = _percentile(q, 0.95)
    out["empty_fraction"] = sum(1 for r in rows if r[1] <= 0) / n
    out["p_mean"] = sum(r[2] for r in rows) / n
    step = (rows[-1][0] - rows[0][0]) / (n - 1)
    series = [r[1] for r in rows]
    mean = sum(series) / n
    dev = [x - mean for x in series]
    var = sum(d * d for d in dev)
    if var <= 0:
        return out
    acf = [sum(dev[i] * dev[i + lag] for i in range(n - lag)) / var for lag in range(n // 2)]
    below = next((lag for lag, a in enumerate(acf) if a < 0), None)
    if below is None:
        return out
    for lag in range(below + 1, len(acf) - 1):
        if acf[lag] > 0 and acf[lag] >= acf[lag - 1] and acf[lag] >= acf[lag + 1]:
            out["period_s"] = lag * step
            out["acf_peak"] = acf[lag]
            break
    return out


def _percentile(sorted_values: Sequence[float], f: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    pos = f * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def rem_pi_table(
    cases: Sequence[ChenRemPiCase],
    seeds_of: Callable[[Any], Sequence[int]],
    read: Callable[[ChenRemPiCase, int, str], dict[str, Any] | None],
) -> str:
    """Seed by seed, ns-2 / aqmlab: the window's metrics, the mark rate, and how the queue
    swings over the window (from each run's stored trace; see `oscillation`)."""

    def values(case: ChenRemPiCase, seed: int, side: str) -> dict[str, Any]:
        run = read(case, seed, side)
        if run is None:
            return {}
        v: dict[str, Any] = dict(run["summary"])
        osc = oscillation(run.get("trace", []), case.window_start_s)
        v.update(osc)
        if math.isfinite(osc["q_p05"]):
            v["q_range"] = f"{osc['q_p05']:.0f}–{osc['q_p95']:.0f}"
        return v

    return _seed_table(
        "REM and PI seed by seed (ns-2 / aqmlab), with the queue's 5th–95th percentiles, the "
        f"time it is empty and the period of its swing over the window (from a {TRACE_MS:g} ms "
        "trace):",
        (
            *WINDOW_COLUMNS,
            ("queue 5–95 % (pkts)", "q_range", ""),
            ("time empty", "empty_fraction", ".1%"),
            ("period (s)", "period_s", ".1f"),
        ),
        cases,
        seeds_of,
        values,
    )
