"""The discrete-time TCP/AQM model (`api`: fixed points, orbits, bifurcations, Lyapunov
exponents, stability maps as DataFrames), its figures (`plots`), its text summaries
(`text`), the self-tuning-RED paper's model results (`reproduce`) and the bridge to the
packet simulator (`bridge`). `from aqmlab import model; model.fixed_points(...)` is the API.
"""

from .api import (
    DROP_FUNCTIONS,
    PARAM_LABELS,
    Bifurcation,
    Params,
    bifurcation,
    canonical,
    defaults,
    equilibrium,
    fixed_points,
    lyapunov,
    map_curve,
    orbit,
    p_max_for_target,
    param_names,
    stability_map,
    w_bound_eq312,
)

__all__ = [
    "DROP_FUNCTIONS",
    "PARAM_LABELS",
    "Bifurcation",
    "Params",
    "bifurcation",
    "canonical",
    "defaults",
    "equilibrium",
    "fixed_points",
    "lyapunov",
    "map_curve",
    "orbit",
    "p_max_for_target",
    "param_names",
    "stability_map",
    "w_bound_eq312",
]
