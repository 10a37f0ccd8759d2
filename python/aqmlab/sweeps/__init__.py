"""Grids of runs: experiment files (`experiment`), running them on local worker processes or
a Ray cluster with resume and retry (`grid`, `ray`, `workers`), progress (`progress`) and
Ctrl-C/SIGTERM (`interrupt`).

The grid's names are imported on first use (PEP 562), so that a command that only reads an
experiment file (`aqmlab run` asks whether its file is one) does not load the process pool."""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["BACKENDS", "BackendError", "SweepError", "connected", "execute", "sweep"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'aqmlab.sweeps' has no attribute {name!r}")
    value = getattr(import_module(".grid", __name__), name)
    globals()[name] = value
    return value
