"""The discrete-time TCP/AQM model (Ranjan, Abed & La 2004, as the self-tuning-RED paper of
Chen, Hu & Ji 2011 writes it in §2-3), with the drop functions of the AQM crate.

One step of the map is one round trip: q_(n+1) = (1 - w)·q_n + w·Q(p(q_n)), with
Q(p) = clamp(N·K/sqrt(p) - C·d/M, 0, B) and p(q) the drop function (RED, gentle RED or
BetaRED, the very code the packet simulator runs). The computations are in Rust
(`crates/model`); this module turns them into pandas DataFrames.

Parameters are a mapping of names to values, applied over the defaults (the self-tuning-RED
paper's reference case, `defaults()`); every name has units in it:

    drop            "red", "gentle" (default) or "betared"
    w               averaging weight per round trip, in (0, 1]
    p_max, theta    in (0, 1] and (0, 1)
    q_min_pkts, q_max_pkts, q_target_pkts     thresholds and target, packets
    n_flows, capacity_mbps, d_s, packet_bits, buffer_pkts, k     N, C, d, M, B, K
    p_max_from_target   True: p_max set so that the fixed point is q_target (eq. (3.2))

The papers' short names N, C, d, M, B, K, q_min, q_max, q_target are accepted too. Bad values
and bad arguments raise ValueError with a one-line message naming the field or argument, such
as `w: must be in (0, 1]` or `steps: must be an integer in 0..49999999, got -1`. Counts are
integers (NumPy's too, not floats); value lists are finite numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import _core
from .names import DROP_FUNCTIONS as DROP_FUNCTIONS

if TYPE_CHECKING:
    import pandas as pd

Params = Mapping[str, Any]

PARAM_LABELS = {
    "w": "w (per round trip)",
    "p_max": "p_max",
    "theta": "θ",
    "q_target_pkts": "q_target (packets)",
    "q_min_pkts": "q_min (packets)",
    "q_max_pkts": "q_max (packets)",
    "n_flows": "number of flows N",
    "capacity_mbps": "capacity C (Mb/s)",
    "d_s": "round-trip propagation delay d (s)",
    "packet_bits": "packet size M (bits)",
    "buffer_pkts": "buffer B (packets)",
    "k": "K",
}
"""Axis labels of the parameters."""


def defaults() -> dict[str, Any]:
    """The default parameters: the self-tuning-RED paper's reference case (§3.1): C = 75 Mb/s,
    K = sqrt(1.5), M = 4000 bit, d = 0.1 s, N = 250, q_min = 250, q_max = 750, B = 3750,
    p_max = 0.1, w = 0.02, gentle RED; q_target 500 and θ 0.1 for BetaRED."""
    return dict(_core.model_defaults())


def param_names() -> dict[str, str | None]:
    """Every numeric parameter's canonical name with its short alias (or None)."""
    return dict(_core.model_param_names())


def canonical(name: str) -> str:
    """The canonical name of a parameter given by name or alias; ValueError when unknown."""
    for full, alias in _core.model_param_names():
        if name in (full, alias):
            return full
    allowed = ", ".join(full for full, _ in _core.model_param_names())
    raise ValueError(f"{name}: unknown model parameter (allowed: {allowed})")


def _params(params: Params | None) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise ValueError(
            f"params: must be a mapping of parameter names to values, got {params!r:.60}"
        )
    return dict(params)


def equilibrium(params: Params | None = None) -> dict[str, Any]:
    """Fixed points and the derived constants, as the core returns them: `fixed_points` (a
    list of dicts), `jumps_pkts` (where the equilibrium falls on a jump of the drop function),
    `p_max` in force, `w`, `bdp_pkts` = C·d/M, `p1`, `p2`, `q1_pkts`, `q2_pkts`."""
    return _core.model_fixed_points(_params(params))


def fixed_points(params: Params | None = None) -> pd.DataFrame:
    """One row per fixed point q* of the map on [0, B]: `q_avg_pkts`, `p` = p(q*),
    `eigenvalue` = f'(q*) (eq. (3.9)), `gain` s (λ = 1 - w·(1 + s)), `w_bound` = 2/(1 + s)
    (stable exactly for w below it), `w_bound_eq312` (the closed form eq. (3.12) where it
    applies, else NaN), `stable`, and `p_max` in force. Empty when the equilibrium falls on a
    jump of the drop function (see `equilibrium`)."""
    import pandas as pd

    eq = equilibrium(params)
    columns = ["q_avg_pkts", "p", "eigenvalue", "gain", "w_bound", "w_bound_eq312", "stable"]
    df = pd.DataFrame(eq["fixed_points"], columns=columns)
    df["w_bound_eq312"] = df["w_bound_eq312"].astype(float)
    df["p_max"] = eq["p_max"]
    return df


def p_max_for_target(q_target_pkts: float, params: Params | None = None) -> float:
    """The p_max whose fixed point is `q_target_pkts`: eq. (3.2) for RED, p*/I(z_target) for
    BetaRED (with the other parameters of `params`)."""
    p = _params(params)
    p.update(q_target_pkts=q_target_pkts, p_max_from_target=True)
    return float(equilibrium(p)["p_max"])


def w_bound_eq312(q_star_pkts: float, params: Params | None = None) -> float:
    """Eq. (3.12): 4/(3 + (q_min + d·C/M)/(q* - q_min)), the largest w for which a fixed point
    q* on the linear RED ramp is stable (p_max then follows from eq. (3.2))."""
    p = _params(params)
    p.update(drop="red", q_target_pkts=q_star_pkts, p_max_from_target=True)
    return float(fixed_points(p)["w_bound_eq312"].iloc[0])


def orbit(
    params: Params | None = None, q0_pkts: float | None = None, steps: int = 100
) -> pd.DataFrame:
    """`steps` iterations (0..49999999) of the map from `q0_pkts` (in [0, B]; default mid-way
    between q_min and q_max): columns `n`, `q_avg_pkts`, `q_pkts` (the instantaneous queue
    averaged into q_avg at step n; NaN at n = 0) and `derivative` f'(q_avg)."""
    import pandas as pd

    return pd.DataFrame(_core.model_orbit(_params(params), q0_pkts, steps))


class Bifurcation(NamedTuple):
    """A one-parameter sweep."""

    param: str
    """The swept parameter's canonical name."""
    points: pd.DataFrame
    """The last `keep` iterates at each value: `value`, `q_avg_pkts`, `q_pkts`."""
    summary: pd.DataFrame
    """One row per value: `value`, `period` (0: none up to max_period: chaos, a longer
    period, or not settled), `lyapunov`, `q_star_pkts`, `eigenvalue`, `w_bound`,
    `fixed_point_stable`, `p_max` in force, `evaluated` (map evaluations done)."""


def bifurcation(
    param: str,
    values: Sequence[float] | np.ndarray,
    params: Params | None = None,
    *,
    iterations: int = 10_000,
    transient: int | None = None,
    keep: int = 200,
    q0_pkts: float | None = None,
    max_period: int = 64,
    period_tol_pkts: float | None = None,
    early_exit: bool = True,
    threads: int = 0,
) -> Bifurcation:
    """Sweep `param` over `values`: at each value iterate the map `iterations` times from
    `q0_pkts`, drop the first `transient` (default half), average ln|f'| over the rest (the
    Lyapunov exponent), record the last `keep` iterates and look for a period up to
    `max_period` (two iterates a period apart within `period_tol_pkts`, default 1e-6·B).
    With `early_exit` an orbit that has settled on a cycle (to 1e-12·B) continues along the
    cycle without further evaluations of the map. Runs in Rust on `threads` threads (0: all
    cores, at most 1024). Ranges: `iterations` >= 1, `transient` below it, `keep` at most
    iterations - transient (and 5·10⁷ iterates over all values), `max_period` 1..100000."""
    import pandas as pd

    name = canonical(param)
    out = _core.model_bifurcation(
        _params(params),
        name,
        values,
        iterations=iterations,
        transient=transient,
        keep=keep,
        q0_pkts=q0_pkts,
        max_period=max_period,
        period_tol_pkts=period_tol_pkts,
        early_exit=early_exit,
        threads=threads,
    )
    return Bifurcation(name, pd.DataFrame(out["points"]), pd.DataFrame(out["summary"]))


def lyapunov(
    param: str,
    values: Sequence[float] | np.ndarray,
    params: Params | None = None,
    **options: Any,
) -> pd.DataFrame:
    """The Lyapunov exponent (and period, fixed point, eigenvalue) along a sweep of `param`:
    the summary of `bifurcation` (same options) without the iterates."""
    options["keep"] = 0
    return bifurcation(param, values, params, **options).summary


def stability_map(
    x_param: str,
    x_values: Sequence[float] | np.ndarray,
    y_param: str,
    y_values: Sequence[float] | np.ndarray,
    params: Params | None = None,
    *,
    iterations: int = 10_000,
    transient: int | None = None,
    q0_pkts: float | None = None,
    max_period: int = 64,
    period_tol_pkts: float | None = None,
    early_exit: bool = True,
    threads: int = 0,
) -> pd.DataFrame:
    """Every (x, y) of the grid `x_values` × `y_values`: one row each, y-major, with the
    columns named after the two parameters, then `period`, `lyapunov`, `q_star_pkts`,
    `eigenvalue`, `w_bound`, `fixed_point_stable` (options as `bifurcation`; at most 5·10⁷
    cells)."""
    import pandas as pd

    x, y = canonical(x_param), canonical(y_param)
    out = _core.model_stability_map(
        _params(params),
        x,
        x_values,
        y,
        y_values,
        iterations=iterations,
        transient=transient,
        q0_pkts=q0_pkts,
        max_period=max_period,
        period_tol_pkts=period_tol_pkts,
        early_exit=early_exit,
        threads=threads,
    )
    df = pd.DataFrame(out)
    return df.rename(columns={"x": x, "y": y})


def map_curve(params: Params | None = None, points: int = 2001) -> pd.DataFrame:
    """The map on a grid of `points` values (2..50000000) of q_avg over [0, B]: `q_avg_pkts`,
    `p` = p(q_avg), `q_pkts` = Q(p(q_avg)), `f` = f(q_avg) and `derivative` = f'(q_avg)."""
    import pandas as pd

    return pd.DataFrame(_core.model_map(_params(params), points))
