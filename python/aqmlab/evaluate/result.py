"""One RFC 7928 section's runs and what the report card made of them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..sweeps.experiment import Experiment
from .suite import Section


@dataclass
class SectionResult:
    """A section, its experiment (with the evaluated AQMs on its `aqm` axis), one row of
    measures per stored run (`aqmlab.evaluate.metrics`), the ranking and the figures' paths."""

    section: Section
    experiment: Experiment
    keys: list[str] = field(default_factory=list)
    """The grid's columns besides `aqm` (the cases; a parameter and its factor)."""
    refused: list[tuple[str, str, float, str]] = field(default_factory=list)
    """Parameter-sensitivity variants the AQM refused: (aqm, parameter, factor, message)."""
    measures: pd.DataFrame = field(default_factory=pd.DataFrame)
    ranking: pd.DataFrame = field(default_factory=pd.DataFrame)
    figures: list[str] = field(default_factory=list)
