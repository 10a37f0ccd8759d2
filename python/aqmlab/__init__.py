"""aqmlab: a packet-level TCP/AQM network simulator."""

from ._core import ScenarioError
from ._core import version as _core_version
from .result import RunResult
from .runner import run
from .scenario import Scenario

__version__ = _core_version()

__all__ = ["RunResult", "Scenario", "ScenarioError", "__version__", "run"]
