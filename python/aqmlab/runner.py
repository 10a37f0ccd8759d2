"""Run one scenario in the Rust core and wrap the outcome."""

from __future__ import annotations

import os
from collections.abc import Callable

from . import _core
from .result import RunResult
from .scenario import Scenario

ProgressFn = Callable[[float, float], None]
"""Called as progress(sim_time_s, duration_s) about 200 times per run."""


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    progress: ProgressFn | None = None,
) -> RunResult:
    """Simulate `scenario` (a Scenario or a path to a TOML file).

    `seed` None uses the scenario's own `seed` key. Raises `ScenarioError` for invalid input.
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    out = _core.run_scenario(scenario.text, list(scenario.overrides), seed, progress)
    return RunResult.from_core(out, source=scenario.source, overrides=scenario.overrides)
