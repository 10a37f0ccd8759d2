"""The BetaRED paper's reproduction: Figs. 3–9, one experiment file each
(`experiments/betared/fig3.toml` …), judged by the claims of `claims` and written up by
`report`."""

from __future__ import annotations

from ..base import Paper, ReproductionRuns
from ..claims import Claim
from . import claims
from .report import render

TITLE = (
    'Giménez, Murcia, Amigó, Martínez-Bonastre, Valero, "New RED-type TCP-AQM algorithms based '
    'on Beta distribution drop functions", Applied Sciences 12, 11176 (2022), Figs. 3–9'
)


def judge(runs: ReproductionRuns) -> tuple[list[Claim], str]:
    """The claims of the figures that ran, with verdicts, and the text of report.md."""
    tables = {
        f.experiment.name: f.table
        for f in runs.figures
        if f.table is not None and not f.table.empty
    }
    names = {f.experiment.name for f in runs.figures}
    judged = [c for c in claims.evaluate(tables) if c.figure in names]
    return judged, render(runs.paper.title, runs.command, runs.figures, judged, runs.info)


PAPER = Paper(
    directory="betared",
    title=TITLE,
    parts={"figure": {n: (f"fig{n}",) for n in (3, 4, 5, 6, 7, 8, 9)}},
    judge=judge,
)
