"""What the command line needs of sweeps before a command runs: whether a TOML file is an
experiment or a scenario, the backends, and the errors it reports as usage errors; in a module
that loads none of the sweep machinery, so that `aqmlab run` starts without it."""

from __future__ import annotations

import os

from .. import _core
from ..engine.scenario import read_toml_text

BACKENDS = ("local", "ray")
"""Where a sweep's runs are simulated: local worker processes, or a Ray cluster."""


class ExperimentError(ValueError):
    """An invalid experiment file; the message is one line naming the file and the key."""


class BackendError(ValueError):
    """A backend that cannot be used (unknown, not installed, cluster not reachable); the
    message is one line naming the option."""


def is_experiment_text(text: str) -> bool:
    """Whether TOML text is an experiment (it names a base `scenario`) rather than a
    scenario; text that is not TOML counts as a scenario."""
    return _core.toml_top_level_string(text, "scenario") is not None


def experiment_not_scenario(path: str | os.PathLike[str], command: str) -> str:
    """The message for an experiment file given to `command`, which takes a scenario."""
    return (
        f"{os.fspath(path)}: an experiment file, not a scenario (it names a base `scenario` "
        f"and a grid); aqmlab {command} takes a scenario file; run the experiment with "
        f"`aqmlab sweep {os.fspath(path)}`"
    )


def is_experiment_file(path: str | os.PathLike[str]) -> bool:
    """Whether a TOML file is an experiment rather than a scenario (`is_experiment_text`);
    files that cannot be read count as scenarios."""
    try:
        return is_experiment_text(read_toml_text(path, "experiment"))
    except (OSError, _core.ScenarioError):
        return False
