"""`aqmlab reproduce PAPER`: run every figure's experiment of a paper (resumable), then write
the figures, the tidy tables and report.md with a verdict on each of the paper's claims."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import _core, chen2011, claims_betared, data, li2014
from .claims_betared import Claim
from .experiment import Experiment, ExperimentError, RunSpec
from .outdir import write_file
from .plots import plot_experiment
from .report import FigureOutcome, render
from .store import RunStore
from .sweeps import SweepOutcome, execute, load_traces, table, write_table


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


def _judge_betared(runs: ReproductionRuns) -> tuple[list[Claim], str]:
    tables = {
        f.experiment.name: f.table
        for f in runs.figures
        if f.table is not None and not f.table.empty
    }
    names = {f.experiment.name for f in runs.figures}
    claims = [c for c in claims_betared.evaluate(tables) if c.figure in names]
    return claims, render(runs.paper.title, runs.command, runs.figures, claims, runs.info)


PAPERS = {
    "betared": Paper(
        directory="betared",
        title='Giménez, Murcia, Amigó, Martínez-Bonastre, Valero, "New RED-type TCP-AQM '
        'algorithms based on Beta distribution drop functions", Applied Sciences 12, 11176 '
        "(2022), Figs. 3–9",
        parts={"figure": {n: (f"fig{n}",) for n in (3, 4, 5, 6, 7, 8, 9)}},
        judge=_judge_betared,
    ),
    "li2014": Paper(
        directory="li2014",
        title=li2014.TITLE,
        parts={"table": li2014.PARTS},
        judge=li2014.judge,
    ),
    "chen2011": Paper(
        directory="chen2011",
        title=chen2011.TITLE,
        parts=chen2011.PARTS,
        judge=chen2011.judge,
    ),
}


@dataclass
class ReproduceOutcome:
    out_dir: Path
    report: Path
    figures: list[FigureOutcome]
    claims: list[Claim]
    sweep: SweepOutcome
    wall_s: float
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def experiments_dir(paper: Paper) -> Path:
    """`experiments/<paper>` under the current folder when there is one (a copy the user
    changed), else the files aqmlab ships (`aqmlab.data`)."""
    return data.experiments(paper.directory)


def parse_parts(text: str, paper: Paper, noun: str) -> list[Part]:
    """`"3,8"` -> [(noun, 3), (noun, 8)]; every number must be one of the paper's `noun`s."""
    flag = f"--{noun}s"
    numbers_of = paper.parts.get(noun)
    if numbers_of is None:
        kinds = " or ".join(f"--{k}s" for k in paper.parts)
        raise ExperimentError(f"{flag}: the paper has no numbered {noun}s here; use {kinds}")
    allowed = ", ".join(str(f) for f in numbers_of)
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items or not all(re.fullmatch(r"\d+", t) for t in items):
        raise ExperimentError(
            f"{flag} {text!r}: expected {noun} numbers such as "
            f"{','.join(str(n) for n in list(numbers_of)[:2])} (of {allowed})"
        )
    numbers = sorted({int(t) for t in items})
    bad = [f for f in numbers if f not in numbers_of]
    if bad:
        raise ExperimentError(f"{flag}: no {noun} {bad[0]} (allowed: {allowed})")
    return [(noun, n) for n in numbers]


def describe_parts(chosen: Sequence[Part]) -> str:
    """[("figure", 5), ("figure", 7), ("table", 1)] -> "Figures 5, 7; Table 1"."""
    out = []
    for noun in dict.fromkeys(n for n, _ in chosen):
        numbers = [str(k) for n, k in chosen if n == noun]
        out.append(f"{noun.capitalize()}{'s' if len(numbers) > 1 else ''} {', '.join(numbers)}")
    return "; ".join(out)


def reproduce(
    paper_name: str,
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    jobs: int | None = None,
    parts: Sequence[Part] | None = None,
    progress: bool = True,
    command: str | None = None,
    overwrite: bool = False,
    backend: str = "local",
    address: str | None = None,
    max_memory: str | int | None = None,
) -> ReproduceOutcome:
    """Run, tabulate, plot and judge the paper's figures (or tables) into `out_dir`.

    Finished runs are stored under `out_dir`/runs and reused when called again. A figure
    whose scenarios the core rejects (an AQM this build lacks, say) is reported as not run.
    Raises `ExperimentError` for an unknown paper or an invalid experiment file, and
    `OutputError` for an output folder aqmlab must not write (see `aqmlab.outdir`), both
    before the first run.
    """
    t0 = time.perf_counter()
    paper = PAPERS.get(paper_name)
    if paper is None:
        raise ExperimentError(f"unknown paper '{paper_name}' (available: {', '.join(PAPERS)})")
    directory = experiments_dir(paper)
    chosen = list(parts) if parts else paper.all_parts()
    stems = paper.experiments(chosen)
    experiments = [Experiment.load(directory / f"{stem}.toml", quick=quick) for stem in stems]
    out_dir = Path(out_dir)

    outcomes: list[FigureOutcome] = []
    specs_of: dict[str, list[RunSpec]] = {}
    for exp in experiments:
        fig = FigureOutcome(exp)
        try:
            specs_of[exp.name] = exp.runs()
            fig.runs = len(specs_of[exp.name])
        except ExperimentError as e:
            fig.error = str(e)
        outcomes.append(fig)
    all_specs = [s for specs in specs_of.values() for s in specs]
    sweep = execute(
        all_specs,
        out_dir,
        jobs,
        progress,
        paper_name,
        backend,
        address,
        "reproduce",
        overwrite,
        max_memory,
    )

    store = RunStore(out_dir)
    for fig in outcomes:
        exp = fig.experiment
        if fig.error:
            continue
        specs = specs_of[exp.name]
        df = table(exp, specs, store)
        fig.table, fig.stored = df, len(df)
        if df.empty:
            continue
        fig.files += [str(p) for p in write_table(df, out_dir / "tables", exp.name)]
        traces = load_traces(exp, specs, store) if exp.plot.kind == "traces" else None
        fig.files += [
            str(p) for p in plot_experiment(exp, df, out_dir / "figures", exp.name, traces)
        ]

    problems = [f"{f.experiment.name}: not run: {f.error}" for f in outcomes if f.error]
    problems += [f"run {run} failed: {msg}" for run, msg in sweep.failed]
    seeds = sorted({len(e.seeds) for e in experiments})
    info = {
        "aqmlab": _core.version(),
        "mode": "quick (each experiment file's [quick] settings)" if quick else "full",
        "parts": describe_parts(chosen),
        "runs": f"{sweep.total} distinct runs ({sweep.ran} simulated now, "
        f"{sweep.skipped} reused from `runs/`, {len(sweep.failed)} failed)",
        "replications": " or ".join(str(s) for s in seeds) + " seed(s) per grid point "
        "(listed per experiment)",
    }
    runs = ReproductionRuns(
        paper,
        outcomes,
        specs_of,
        store,
        out_dir,
        quick,
        command or f"aqmlab reproduce {paper_name}" + (" --quick" if quick else ""),
        info,
    )
    wall_s = time.perf_counter() - t0
    workers = (
        f"{jobs or os.cpu_count()} worker process(es)"
        if backend == "local"
        else f"a Ray cluster ({address or 'local instance'}, {jobs or 'all'} runs at a time)"
    )
    info["wall time of this invocation"] = (
        f"{wall_s:.0f} s with {workers}; {sweep.cpu_s:.0f} CPU seconds in the simulations run now"
    )
    if problems:
        info["problems"] = "; ".join(problems)
    claims, text = paper.judge(runs)
    write_table(
        pd.DataFrame(
            [
                {
                    "claim": c.id,
                    "figure": c.figure,
                    "source": c.source,
                    "claim_text": c.text,
                    "criterion": c.criterion,
                    "verdict": c.verdict,
                    "numbers": c.evidence,
                }
                for c in claims
            ]
        ),
        out_dir / "tables",
        "verdicts",
    )
    report = write_file(out_dir / "report.md", text)
    return ReproduceOutcome(out_dir, report, outcomes, claims, sweep, wall_s, problems)
