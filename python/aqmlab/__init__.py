"""aqmlab: a packet-level TCP/AQM network simulator.

The names below are imported on first use (PEP 562), so that `import aqmlab` and the `aqmlab`
command start without pandas or matplotlib (docs/architecture.md, "Start-up and output").
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._core import ScenarioError
from ._core import version as _core_version

if TYPE_CHECKING:
    from . import aqm, model
    from .experiment import Experiment, ExperimentError
    from .outdir import OutputError
    from .result import RunResult
    from .runner import run
    from .scenario import Scenario
    from .sweeps import sweep

__version__ = _core_version()

_LAZY = {
    "Experiment": "experiment",
    "ExperimentError": "experiment",
    "OutputError": "outdir",
    "RunResult": "result",
    "Scenario": "scenario",
    "run": "runner",
    "sweep": "sweeps",
    "aqm": None,
    "model": None,
}
"""Public name -> the submodule that defines it (None: the name is a submodule)."""

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
    module = import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
