"""Tuning an AQM's parameters: a multi-objective search (Optuna's NSGA-II or TPE) over the
ranges of its parameter registry, each trial run on an experiment's loads and seeds, with the
Pareto front, the default parameters on it and the chosen points rerun with five seeds
(docs/tuning.md).

`errors` (`TuneError`, which the command line imports at start-up), `space` (the parameters
and objectives), `problem` (the experiment with the AQM pinned, a trial's runs and scores), `study`
(the resumable Optuna study), `front` (the Pareto front and the tables), `figure`, and
`tuning` (`tune`, which does it all). The names below are imported on first use (PEP 562)."""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

_LAZY = {
    "TuneError": ".errors",
    "TuneResult": ".tuning",
    "tune": ".tuning",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'aqmlab.tune' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
