"""What a tuning study searches and what it optimises: the AQM's parameters with their ranges
(read from the AQM's parameter registry, `aqmlab list --params AQM`, or given by the user) and
the objectives (summary metrics to minimise or maximise)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import _core
from .errors import TuneError

DEFAULT_PARAMS: dict[str, tuple[str, ...]] = {
    "red": ("p_max", "w"),
    "ared": ("target_delay_ms",),
    "betared": ("theta", "w"),
    "abetared": ("theta", "w"),
    "dbetared": ("theta", "w"),
    "codel": ("target_ms", "interval_ms"),
    "pie": ("target_ms", "alpha", "beta"),
    "cobalt": ("target_ms", "interval_ms"),
    "fq_codel": ("target_ms", "interval_ms"),
    "fq_pie": ("target_ms", "alpha", "beta"),
    "fq_cobalt": ("target_ms", "interval_ms"),
    "dualpi2": ("target_ms", "alpha_hz", "beta_hz"),
    "step": ("k_pkts",),
}
"""The parameters tuned when no `--param` is given: the ones each AQM's papers tune. The
other AQMs need `--param`."""

THETA_RANGE = (0.01, 0.5)
"""θ's default range for the Beta family: the registry allows [0.005, 1), but with the default
thresholds a θ near 1 gives a curve whose shape parameters fall below 0.01, which the AQM
refuses; the BetaRED paper's figures use 0.05 to 0.5."""

DEFAULT_RANGES: dict[tuple[str, str], tuple[float, float]] = {
    ("betared", "theta"): THETA_RANGE,
    ("abetared", "theta"): THETA_RANGE,
    ("dbetared", "theta"): THETA_RANGE,
}
"""Default ranges that differ from the general rule (`SPAN`)."""

DEFAULT_OBJECTIVES = ("delay_mean_ms:min", "throughput_mbps:max")

HIGHER_IS_BETTER = frozenset({"throughput_mbps", "link_efficiency", "jain_fairness"})
"""Metrics maximised when an objective names no direction; every other one is minimised."""

NOT_OBJECTIVES = frozenset({"aqm", "port", "seed", "duration_s", "window_start_s", "window_end_s"})
"""Summary columns that describe the run rather than measure it."""

SPAN = 10.0
"""A parameter's default range: its default divided and multiplied by this, inside the range
its registry allows."""

OPEN_END_PULL = 0.01
"""How far (a fraction of the bound) a default range stays inside an open end of the allowed
range: θ in [0.005, 1) gives at most 0.99."""

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|2\^32-1"
_INTERVAL = re.compile(
    rf"^(?P<integer>integer in )?(?P<lo_b>[\[(])\s*(?P<lo>{_NUMBER})\s*,\s*"
    rf"(?P<hi>{_NUMBER})\s*(?P<hi_b>[\])])$"
)
_HALF_LINE = re.compile(rf"^(?P<op>>=|>)\s*(?P<lo>{_NUMBER})$")


def _number(text: str) -> float:
    return float(2**32 - 1) if text == "2^32-1" else float(text)


@dataclass(frozen=True)
class Limits:
    """The values a parameter's registry allows, as far as they are numbers: `known` is
    False when a bound names another parameter (`> q_min_pkts`), which the core then checks."""

    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False
    known: bool = True

    def admits(self, value: float) -> bool:
        above = value > self.lo if self.lo_open else value >= self.lo
        below = value < self.hi if self.hi_open else value <= self.hi
        return above and below


def parse_allowed(text: str) -> Limits:
    """The numeric limits of a registry's `allowed` text: `(0, 1]`, `>= 0`, `integer in [1,
    2^32-1]`, `finite`; after "or" the last alternative (`0 (automatic) or (0, 1]`), before
    ", with" the range itself. Anything else is unknown (`Limits(known=False)`)."""
    text = text.rsplit(" or ", 1)[-1].split(", with", 1)[0].strip()
    if text == "finite":
        return Limits()
    m = _INTERVAL.match(text)
    if m:
        return Limits(_number(m["lo"]), _number(m["hi"]), m["lo_b"] == "(", m["hi_b"] == ")")
    m = _HALF_LINE.match(text)
    if m:
        return Limits(lo=_number(m["lo"]), lo_open=m["op"] == ">")
    return Limits(known=False)


@dataclass(frozen=True)
class Param:
    """One tuned parameter: `queue.<aqm>.<name>` searched over [low, high]."""

    aqm: str
    name: str
    low: float
    high: float
    log: bool
    integer: bool
    default: Any
    """The registry's default."""
    allowed: str
    unit: str = ""

    @property
    def key(self) -> str:
        """The scenario key the parameter sets."""
        return f"queue.{self.aqm}.{self.name}"

    def spec(self) -> dict[str, Any]:
        """What identifies the parameter in a study (`study.json`)."""
        return {
            "name": self.name,
            "low": self.low,
            "high": self.high,
            "log": self.log,
            "integer": self.integer,
        }

    def describe(self) -> str:
        """`theta in [0.01, 0.99] (log)`."""
        scale = "log" if self.log else "linear"
        kind = "integer " if self.integer else ""
        return f"{self.name} in {kind}[{self.low:g}, {self.high:g}] ({scale})"


@dataclass(frozen=True)
class Objective:
    """A summary metric to minimise or maximise, averaged over a trial's runs."""

    metric: str
    direction: str
    """"min" or "max"."""

    @property
    def maximise(self) -> bool:
        return self.direction == "max"

    def __str__(self) -> str:
        return f"{self.metric}:{self.direction}"


def aqm_names() -> list[str]:
    return list(_core.catalog()["aqms"])


def check_aqm(name: str) -> str:
    """`name` when the build knows the AQM; `TuneError` listing the AQMs otherwise."""
    names = aqm_names()
    if name not in names:
        raise TuneError(f'unknown AQM "{name}"; allowed: {", ".join(names)}')
    if not _core.aqm_params(name):
        raise TuneError(f"AQM {name} has no parameters to tune")
    return name


def _numeric(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [
        r
        for r in rows
        if isinstance(r["default"], (int, float)) and not isinstance(r["default"], bool)
    ]


def tunable(aqm: str) -> list[str]:
    """The AQM's numeric parameters (flags and choices cannot be tuned)."""
    return [r["name"] for r in _numeric(_core.aqm_params(aqm))]


def _bound(text: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise TuneError(f"{option}: {text!r} is not a finite number; expected NAME=LO:HI")
    return value


def _default_range(
    aqm: str, row: Mapping[str, Any], limits: Limits, option: str
) -> tuple[float, float]:
    """The default range: `DEFAULT_RANGES`, else the default ÷ and × `SPAN` inside the allowed
    limits, an open end pulled in by `OPEN_END_PULL`."""
    if (aqm, row["name"]) in DEFAULT_RANGES:
        return DEFAULT_RANGES[(aqm, row["name"])]
    default = float(row["default"])
    if default <= 0 or not limits.known:
        raise TuneError(
            f"{option}: {row['name']} has no default range (default {row['default']}, allowed "
            f"{row['allowed']}); give one as {row['name']}=LO:HI"
        )
    lo, hi = default / SPAN, default * SPAN
    if lo <= limits.lo:
        lo = limits.lo * (1 + OPEN_END_PULL) if limits.lo_open else limits.lo
    if hi >= limits.hi:
        hi = limits.hi * (1 - OPEN_END_PULL) if limits.hi_open else limits.hi
    return lo, hi


def parse_param(aqm: str, text: str) -> Param:
    """One `--param` item: `NAME` (its default range), `NAME=LO:HI`, or `NAME=LO:HI:log` /
    `:linear`. The scale defaults to log when LO > 0 and HI ≥ 10·LO, linear otherwise."""
    option = f"--param {text}"
    name, sep, rest = text.partition("=")
    name = name.strip()
    rows = {r["name"]: r for r in _core.aqm_params(aqm)}
    numeric = tunable(aqm)
    if name not in rows:
        raise TuneError(
            f"--param {name}: {aqm} has no parameter {name!r}; tunable: {', '.join(numeric)}"
        )
    if name not in numeric:
        raise TuneError(
            f"--param {name}: {aqm}'s {name} is a flag or a choice ({rows[name]['allowed']}), "
            f"not a number; tunable: {', '.join(numeric)}"
        )
    row = rows[name]
    limits = parse_allowed(row["allowed"])
    integer = isinstance(row["default"], int) or row["allowed"].startswith("integer")
    scale = None
    if not sep:
        lo, hi = _default_range(aqm, row, limits, option)
    else:
        parts = rest.split(":")
        if len(parts) == 3 and parts[2].strip() in ("log", "linear"):
            scale = parts.pop().strip()
        if len(parts) != 2:
            raise TuneError(f"{option}: expected NAME=LO:HI, NAME=LO:HI:log or NAME=LO:HI:linear")
        lo, hi = (_bound(p.strip(), option) for p in parts)
        if not lo < hi:
            raise TuneError(f"{option}: empty or inverted range; give LO < HI")
        for end in (lo, hi):
            if limits.known and not limits.admits(end):
                raise TuneError(
                    f"{option}: {end:g} is outside what {aqm} allows for {name}, {row['allowed']}"
                )
    if integer:
        lo, hi = float(math.ceil(lo)), float(math.floor(hi))
        if not lo < hi:
            raise TuneError(f"{option}: {name} is an integer; the range holds fewer than two")
    if scale == "log" and lo <= 0:
        raise TuneError(f"{option}: a log scale needs LO > 0")
    log = scale == "log" or (scale is None and lo > 0 and hi >= 10 * lo)
    return Param(aqm, name, lo, hi, log, integer, row["default"], row["allowed"], row["unit"])


def params_for(aqm: str, items: Sequence[str]) -> list[Param]:
    """The parameters of a study: the `--param` items, or the AQM's defaults
    (`DEFAULT_PARAMS`) when there are none."""
    if not items:
        if aqm not in DEFAULT_PARAMS:
            raise TuneError(
                f"--param: {aqm} has no default parameters to tune; name them with --param "
                f"NAME=LO:HI (tunable: {', '.join(tunable(aqm))})"
            )
        items = DEFAULT_PARAMS[aqm]
    params = [parse_param(aqm, item) for item in items]
    names = [p.name for p in params]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise TuneError(f"--param {repeated[0]}: given twice")
    return params


def objective_metrics() -> list[str]:
    """The summary metrics an objective may name."""
    from ..sweeps.experiment import summary_metrics

    return [m for m in summary_metrics() if m not in NOT_OBJECTIVES]


def parse_objective(text: str) -> Objective:
    """`METRIC:min`, `METRIC:max`, or `METRIC` (max for `HIGHER_IS_BETTER`, else min)."""
    metric, sep, direction = text.partition(":")
    metric, direction = metric.strip(), direction.strip()
    allowed = objective_metrics()
    if metric not in allowed:
        raise TuneError(
            f"--objective {text}: unknown metric {metric!r}; allowed: {', '.join(allowed)}"
        )
    if not sep:
        direction = "max" if metric in HIGHER_IS_BETTER else "min"
    if direction not in ("min", "max"):
        raise TuneError(f"--objective {text}: direction must be min or max")
    return Objective(metric, direction)


def objectives_for(items: Sequence[str]) -> list[Objective]:
    """The objectives of a study: the `--objective` items, or `DEFAULT_OBJECTIVES`."""
    objectives = [parse_objective(item) for item in items or DEFAULT_OBJECTIVES]
    metrics = [o.metric for o in objectives]
    repeated = sorted({m for m in metrics if metrics.count(m) > 1})
    if repeated:
        raise TuneError(f"--objective {repeated[0]}: given twice")
    return objectives
