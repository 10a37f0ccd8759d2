"""Run one scenario in the Rust core and wrap the outcome."""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable

from .. import _core
from .memory import check_run
from .result import RunResult
from .scenario import Scenario

ProgressFn = Callable[[float, float], None]
"""Called as progress(sim_time_s, duration_s) about 200 times per run."""


SEED_MAX = 2**64 - 1


def check_seed(seed: object, name: str = "seed") -> None:
    """None or an integer in 0..2^64-1, else `ScenarioError` naming `name`."""
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise _core.ScenarioError(
            f"{name}: must be an integer in 0..2^64-1, got {type(seed).__name__}"
        )
    if not 0 <= int(seed) <= SEED_MAX:
        raise _core.ScenarioError(f"{name}: must be an integer in 0..2^64-1, got {int(seed)}")


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    progress: ProgressFn | None = None,
    max_memory: str | int | None = None,
) -> RunResult:
    """Simulate `scenario` (a Scenario or a path to a TOML file).

    `seed` None uses the scenario's own `seed` key. Raises `ScenarioError` for invalid input
    and `MemoryBudgetError` (before the run) when the run would need more memory than
    `max_memory` (bytes, or a size such as "8G"; default: `aqmlab.engine.memory.budget`).
    """
    if isinstance(scenario, (str, os.PathLike)):
        scenario = Scenario.load(scenario)
    elif not isinstance(scenario, Scenario):
        raise TypeError(
            "scenario: expected a Scenario or the path of a scenario file, "
            f"got {type(scenario).__name__}"
        )
    check_seed(seed)
    if progress is not None and not callable(progress):
        raise TypeError(
            "progress: must be None or a function progress(sim_time_s, duration_s), got "
            f"{type(progress).__name__}"
        )
    seed = None if seed is None else int(seed)
    check_run(scenario.text, scenario.overrides, seed, max_memory)
    out = _core.run_scenario(scenario.text, list(scenario.overrides), seed, progress)
    return RunResult.from_core(out, source=scenario.source, overrides=scenario.overrides)
