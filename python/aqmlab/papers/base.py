"""What a paper reproduction is made of: a paper (`Paper`: its title, its numbered parts and the
experiment files behind them, and the judge that turns runs into verdicts and a report), the
outcome of each experiment (`FigureOutcome`) and everything a judge gets (`ReproductionRuns`).
The framework (`reproduce`) and every paper build on these; nothing here knows a paper."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.store import RunStore
from ..sweeps.experiment import Experiment, RunSpec
from .claims import Claim

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class FigureOutcome:
    """One figure of a reproduction: its experiment, table and status."""

    experiment: Experiment
    table: pd.DataFrame | None = None
    runs: int = 0
    stored: int = 0
    error: str | None = None
    files: list[str] = field(default_factory=list)


@dataclass
class ReproductionRuns:
    """What a paper's report is made from: the experiments run, their stored runs and tables,
    and where the report goes."""

    paper: Paper
    figures: list[FigureOutcome]
    specs_of: Mapping[str, Sequence[RunSpec]]
    store: RunStore
    out_dir: Path
    quick: bool
    command: str
    info: dict[str, str]


Judge = Callable[["ReproductionRuns"], tuple[list[Claim], str]]
"""Turns the runs of a reproduction into its claims with verdicts and the text of report.md
(writing any extra tables and figures under `out_dir`)."""


Part = tuple[str, int]
"""One numbered part of a paper: ("figure", 5) or ("table", 1)."""


@dataclass(frozen=True)
class Paper:
    """A paper whose experiments live in `experiments/<directory>/`: `parts` maps each kind of
    numbered part ("figure", "table") to its numbers, and each number to the experiment files
    (without `.toml`) that reproduce it; several numbers may share one experiment."""

    directory: str
    title: str
    parts: Mapping[str, Mapping[int, tuple[str, ...]]]
    judge: Judge

    def experiments(self, chosen: Sequence[Part]) -> list[str]:
        """The experiment files of the chosen parts, each once, in the paper's order."""
        stems = [s for noun, n in chosen for s in self.parts[noun][n]]
        return list(dict.fromkeys(stems))

    def all_parts(self) -> list[Part]:
        return [(noun, n) for noun, numbers in self.parts.items() for n in numbers]
