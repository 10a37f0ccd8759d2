"""aqmlab: a packet-level TCP/AQM network simulator."""

from . import aqm, model
from ._core import ScenarioError
from ._core import version as _core_version
from .experiment import Experiment, ExperimentError
from .outdir import OutputError
from .result import RunResult
from .runner import run
from .scenario import Scenario
from .sweeps import sweep

__version__ = _core_version()

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
