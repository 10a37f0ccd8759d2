"""`aqmlab reproduce PAPER`: run every figure's experiment of a paper (resumable), then write
the figures, the tidy tables and report.md with a verdict on each of the paper's claims."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import _core, data
from ..engine.outdir import write_file
from ..engine.parquet import write_table
from ..engine.store import RunStore
from ..present.plots import plot_experiment
from ..sweeps.experiment import Experiment, ExperimentError, RunSpec
from ..sweeps.grid import SweepOutcome, execute, load_tables, load_traces, table
from . import catalog
from .base import FigureOutcome, Paper, Part, ReproductionRuns
from .claims import Claim


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
    `OutputError` for an output folder aqmlab must not write (see `aqmlab.engine.outdir`), both
    before the first run.
    """
    t0 = time.perf_counter()
    paper = catalog.paper(paper_name)
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
        kept = load_tables(exp, specs, store)
        fig.files += [
            str(p) for p in plot_experiment(exp, df, out_dir / "figures", exp.name, traces, kept)
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
