"""aqmlab: a packet-level TCP/AQM network simulator.

The names below are imported on first use (PEP 562), so that `import aqmlab` and the `aqmlab`
command start without pandas or matplotlib (docs/architecture.md, "Start-up and output").
"""

from __future__ import annotations

from importlib import import_module

from ._core import ScenarioError
from ._core import version as _core_version

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

    from . import model
    from .engine import aqm
    from .engine.outdir import OutputError
    from .engine.result import RunResult
    from .engine.runner import run
    from .engine.scenario import Scenario
    from .sweeps.experiment import Experiment, ExperimentError
    from .sweeps.grid import sweep

__version__ = _core_version()

_LAZY = {
    "Experiment": ("sweeps.experiment", "Experiment"),
    "ExperimentError": ("sweeps.experiment", "ExperimentError"),
    "OutputError": ("engine.outdir", "OutputError"),
    "RunResult": ("engine.result", "RunResult"),
    "Scenario": ("engine.scenario", "Scenario"),
    "run": ("engine.runner", "run"),
    "sweep": ("sweeps.grid", "sweep"),
    "aqm": ("engine.aqm", None),
    "model": ("model", None),
}
"""Public name -> (the module that defines it, the name there; None: the module itself)."""

__all__ = [
    "Experiment",
    "ExperimentError",
    "OutputError",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "__version__",
    "aqm",
    "model",
    "run",
    "sweep",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    module = import_module(f".{module_name}", __name__)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
