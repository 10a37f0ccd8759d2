"""The Chen, Hu & Ji (2011, §5) cases of `aqmlab validate ns2`: the self-tuning-RED paper's
dumbbell with ECN, N TCP Reno flows through a 150 Mb/s, 30 ms bottleneck whose router runs RED
or gentle RED (q_min 750, q_max 2250, p_max 0.1, w 0.00048814, 7500-packet buffer).

The ns-2 side is `benches/validation/ns2/chen2011_dumbbell.tcl`, the aqmlab side
`experiments/chen2011/dumbbell.toml`. Both measure what the Li et al. (2014) cases measure (see
`validate_ns2`), plus `mark_rate`: CE marks / arrivals at the bottleneck port (ns-2: its queue
monitor's `pmarks_`, the departures carrying CE; aqmlab: the port's marks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .validate import ROOT

SCRIPT = ROOT / "benches" / "validation" / "ns2" / "chen2011_dumbbell.tcl"
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
