"""Grids of runs: experiment files (`experiment`), running them on local worker processes or
a Ray cluster with resume and retry (`grid`, `ray`, `workers`), progress (`progress`) and
Ctrl-C/SIGTERM (`interrupt`)."""

from .grid import BACKENDS, BackendError, SweepError, connected, execute, sweep

__all__ = ["BACKENDS", "BackendError", "SweepError", "connected", "execute", "sweep"]
