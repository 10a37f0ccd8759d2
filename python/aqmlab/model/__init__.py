"""The discrete-time TCP/AQM model (`api`: fixed points, orbits, bifurcations, Lyapunov
exponents, stability maps as DataFrames), its figures (`plots`), its text summaries
(`text`), the self-tuning-RED paper's model results (`reproduce`) and the bridge to the
packet simulator (`bridge`). `from aqmlab import model; model.fixed_points(...)` is the API.
"""

from importlib import import_module
from typing import Any

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


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use (PEP 562), so that importing a submodule such as
    `aqmlab.model.names` does not load numpy."""
    if name not in __all__:
        raise AttributeError(f"module 'aqmlab.model' has no attribute {name!r}")
    value = getattr(import_module(".api", __name__), name)
    globals()[name] = value
    return value
