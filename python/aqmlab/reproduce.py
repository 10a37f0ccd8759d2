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

from . import _core, claims_betared
from .claims_betared import Claim
from .experiment import Experiment, ExperimentError, RunSpec
from .outdir import open_resumable
from .plots import plot_experiment
from .report import FigureOutcome, render
from .store import RunStore
from .sweeps import SweepOutcome, execute, load_traces, table, write_table


@dataclass(frozen=True)
class Paper:
    """A paper whose figures live in `experiments/<directory>/fig<N>.toml`."""

    directory: str
    title: str
    figures: tuple[int, ...]
    evaluate: Callable[[Mapping[str, pd.DataFrame]], list[Claim]]


PAPERS = {
    "betared": Paper(
        directory="betared",
        title='Giménez, Murcia, Amigó, Martínez-Bonastre, Valero, "New RED-type TCP-AQM '
        'algorithms based on Beta distribution drop functions", Applied Sciences 12, 11176 '
        "(2022), Figs. 3–9",
        figures=(3, 4, 5, 6, 7, 8, 9),
        evaluate=claims_betared.evaluate,
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
    """`experiments/<paper>` under the current directory, else next to the source tree."""
    for base in (Path("experiments"), Path(__file__).resolve().parents[2] / "experiments"):
        candidate = base / paper.directory
        if candidate.is_dir():
            return candidate
    raise ExperimentError(f"no experiments/{paper.directory} folder found")


def parse_figures(text: str, paper: Paper) -> list[int]:
    """`"3,8"` -> [3, 8]; every number must be one of the paper's figures."""
    allowed = ", ".join(str(f) for f in paper.figures)
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items or not all(re.fullmatch(r"\d+", t) for t in items):
        raise ExperimentError(
            f"--figures {text!r}: expected figure numbers such as 3,8 (of {allowed})"
        )
    figures = sorted({int(t) for t in items})
    bad = [f for f in figures if f not in paper.figures]
    if bad:
        raise ExperimentError(f"--figures: no figure {bad[0]} (allowed: {allowed})")
    return figures


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def reproduce(
    paper_name: str,
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    jobs: int | None = None,
    figures: Sequence[int] | None = None,
    progress: bool = True,
    command: str | None = None,
    overwrite: bool = False,
) -> ReproduceOutcome:
    """Run, tabulate, plot and judge the paper's figures into `out_dir`.

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
    numbers = list(figures) if figures else list(paper.figures)
    experiments = [Experiment.load(directory / f"fig{n}.toml", quick=quick) for n in numbers]
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
    open_resumable(out_dir, "reproduce", overwrite)
    sweep = execute(all_specs, out_dir, jobs=jobs, progress=progress, desc=paper_name)

    store = RunStore(out_dir)
    tables: dict[str, pd.DataFrame] = {}
    for fig in outcomes:
        exp = fig.experiment
        if fig.error:
            continue
        specs = specs_of[exp.name]
        df = table(exp, specs, store)
        fig.table, fig.stored = df, len(df)
        if df.empty:
            continue
        tables[exp.name] = df
        fig.files += [str(p) for p in write_table(df, out_dir / "tables", exp.name)]
        traces = load_traces(exp, specs, store) if exp.plot.kind == "traces" else None
        fig.files += [
            str(p) for p in plot_experiment(exp, df, out_dir / "figures", exp.name, traces)
        ]

    claims = [c for c in paper.evaluate(tables) if c.figure in {e.name for e in experiments}]
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

    problems = [f"{f.experiment.name}: not run: {f.error}" for f in outcomes if f.error]
    problems += [f"run {run} failed: {msg}" for run, msg in sweep.failed]
    wall_s = time.perf_counter() - t0
    seeds = sorted({len(e.seeds) for e in experiments})
    info = {
        "aqmlab": _core.version(),
        "mode": "quick (reduced grid, shorter runs)" if quick else "full",
        "figures": ", ".join(f"Fig. {n}" for n in numbers),
        "runs": f"{sweep.total} distinct runs ({sweep.ran} simulated now, "
        f"{sweep.skipped} reused from `runs/`, {len(sweep.failed)} failed)",
        "replications": " or ".join(str(s) for s in seeds) + " seed(s) per grid point "
        "(listed per figure)",
        "wall time of this invocation": f"{wall_s:.0f} s with {jobs or os.cpu_count()} "
        f"worker process(es); {sweep.cpu_s:.0f} CPU seconds in the simulations run now",
    }
    if problems:
        info["problems"] = "; ".join(problems)
    text = render(
        paper.title,
        command or f"aqmlab reproduce {paper_name}" + (" --quick" if quick else ""),
        outcomes,
        claims,
        info,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    report = out_dir / "report.md"
    _write_text(report, text)
    return ReproduceOutcome(out_dir, report, outcomes, claims, sweep, wall_s, problems)
