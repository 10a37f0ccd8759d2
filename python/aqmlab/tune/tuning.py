"""`tune`: a multi-objective search over an AQM's parameters on an experiment's runs, from the
checks through the study to the output folder (tables, figure, report)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from ..engine.memory import check_run
from ..engine.outdir import write_file
from ..engine.parquet import write_table
from ..engine.store import RunStore
from ..sweeps.experiment import Experiment, RunSpec, window_phrase
from ..sweeps.grid import SweepOutcome, connected, execute
from ..sweeps.interrupt import Interrupted
from . import front as fr
from .errors import TuneError
from .problem import RERUN_SEEDS, Problem
from .space import check_aqm, objectives_for, params_for
from .study import (
    KIND,
    SAMPLERS,
    STORAGE_FILE,
    STUDY_FILE,
    failure,
    identity,
    import_optuna,
    load_study,
    open_folder,
    optimise,
    planned_trials,
    told_count,
)

if TYPE_CHECKING:
    import pandas as pd

MAX_SEED = 2**32 - 1


@dataclass
class TuneResult:
    """What `tune` found and wrote."""

    out_dir: Path
    problem: Problem
    sampler: str
    seed: int
    batch: int
    planned: int
    trials: pd.DataFrame
    """Every told trial (`front.trials_table`)."""
    pareto: pd.DataFrame
    """The front and the default point (`front.pareto_table`)."""
    rerun: pd.DataFrame
    """The chosen points and the default with seeds 1-5 (`front.rerun_tables`)."""
    rerun_seeds: pd.DataFrame
    window: str
    runs: SweepOutcome

    def summary_lines(self) -> list[str]:
        """The study in a few lines (printed first, and in `report.md`)."""
        p = self.problem
        told = len(self.trials)
        failed = int((self.trials["state"] == "failed").sum())
        source = p.source.name + (" --quick" if p.source.quick else "")
        return [
            f"{p.aqm} tuned on {source}: " + ", ".join(x.describe() for x in p.params),
            f"objectives: {', '.join(str(o) for o in p.objectives)}",
            f"each trial: the mean over {p.runs_per_point()} runs ({p.grid_text()}; {self.window})",
            f"{told} trials ({told - failed} complete, {failed} failed), {self.sampler} "
            f"sampler, seed {self.seed}, batches of {self.batch}",
        ]

    def front_text(self) -> str:
        return fr.front_text(self.pareto, self.problem.params, self.problem.objectives)

    def rerun_text(self) -> str:
        if self.rerun.empty:
            return ""
        return fr.rerun_text(self.rerun, self.problem.params, self.problem.objectives)


def _check_options(sampler: str, seed: int, batch: int, trials: int, rerun: int) -> None:
    if sampler not in SAMPLERS:
        raise TuneError(f"--sampler {sampler}: unknown sampler; allowed: {', '.join(SAMPLERS)}")
    if not 0 <= seed <= MAX_SEED:
        raise TuneError(f"--seed {seed}: must be in 0..{MAX_SEED}")
    if batch < 1 or (sampler == "nsga2" and batch < 2):
        raise TuneError(
            f"--batch {batch}: must be at least {2 if sampler == 'nsga2' else 1}"
            + (" (NSGA-II's population)" if sampler == "nsga2" else "")
        )
    if trials < 1:
        raise TuneError(f"--trials {trials}: must be at least 1")
    if rerun < 0:
        raise TuneError(f"--rerun {rerun}: must be 0 or more")


def prepare(
    aqm: str,
    experiment: Experiment | str | os.PathLike[str],
    params: Sequence[str] = (),
    objectives: Sequence[str] = (),
    quick: bool = False,
) -> Problem:
    """The checked tuning problem (`TuneError` or `ExperimentError`, one line, otherwise)."""
    check_aqm(aqm)
    chosen = params_for(aqm, params)
    goals = objectives_for(objectives)
    if not isinstance(experiment, Experiment):
        experiment = Experiment.load(experiment, quick=quick)
    return Problem.build(aqm, experiment, chosen, goals)


def default_out_dir(problem: Problem) -> Path:
    """`results/tune-<aqm>-<experiment>[-quick]`."""
    quick = "-quick" if problem.source.quick else ""
    return Path("results") / f"tune-{problem.aqm}-{problem.source.name}{quick}"


def tune(
    aqm: str,
    experiment: Experiment | str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    params: Sequence[str] = (),
    objectives: Sequence[str] = (),
    quick: bool = False,
    trials: int = 40,
    batch: int = 8,
    sampler: str = "nsga2",
    seed: int = 1,
    rerun: int = 5,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    overwrite: bool = False,
    max_memory: str | int | None = None,
    progress: bool = True,
    command: str = "",
) -> TuneResult:
    """Tune `aqm`'s parameters on `experiment`'s runs and write the result into `out_dir`
    (default `default_out_dir`); see docs/tuning.md. `params` are `--param` items
    (`theta`, `w=0.01:1`, `target_ms=1:50:log`), `objectives` `--objective` items
    (`delay_mean_ms:min`). Resumes a study of the same settings in `out_dir`. Raises
    `TuneError`, `ExperimentError`, `OutputError`, `BackendError` or `MemoryBudgetError`
    before anything is written, and `Interrupted` (a KeyboardInterrupt) on Ctrl-C or SIGTERM
    once the runs in flight are stored."""
    _check_options(sampler, seed, batch, trials, rerun)
    problem = prepare(aqm, experiment, params, objectives, quick)
    import_optuna()
    out = Path(out_dir) if out_dir is not None else default_out_dir(problem)
    default_specs = problem.specs()
    for spec in default_specs:
        check_run(spec.scenario_text, (), spec.seed, max_memory)
    ident = identity(problem, sampler, seed, batch)
    planned = planned_trials(trials, batch)
    counts = SweepOutcome()

    def run(specs: Sequence[RunSpec], desc: str) -> None:
        outcome = execute(
            specs, out, jobs, progress, f"{aqm}: {desc}", backend, address, KIND, False,
            max_memory,
        )  # fmt: skip
        counts.add(outcome)

    with connected(backend, address, jobs):
        open_folder(out, ident, overwrite)
        study = load_study(out, problem)
        store = RunStore(out)
        try:
            optimise(study, problem, store, sampler, seed, batch, trials, run)
            run(default_specs, "default parameters")
            default_scores = problem.score(default_specs, store)[0]
            told = [t for t in study.get_trials(deepcopy=False) if t.state.is_finished()]
            failures = {
                t.number: failure(problem, t.params, store) for t in told if t.values is None
            }
            table = fr.trials_table(told, problem.params, problem.objectives, failures)
            defaults = problem.default_values()
            pareto = fr.pareto_table(
                table, defaults, default_scores, problem.params, problem.objectives
            )
            chosen = fr.choose(
                pareto[pareto["point"] != fr.DEFAULT_POINT], problem.objectives, rerun
            )
            points = _points(table, chosen, problem, defaults, default_scores) if chosen else []
            specs = [problem.specs(values, RERUN_SEEDS) for _, values, _ in points]
            if specs:
                run([s for group in specs for s in group], f"{len(points)} points with seeds 1-5")
        except KeyboardInterrupt as e:
            signum = e.signum if isinstance(e, Interrupted) else Interrupted.SIGINT
            raise Interrupted(
                signum,
                f"{told_count(study)} of {planned} trials are done in {out}; "
                "run the same command again to resume",
            ) from None
    by_seed = [problem.score_by_seed(group, store) for group in specs]
    rerun_summary, rerun_long = fr.rerun_tables(points, by_seed, problem.params, problem.objectives)
    window = window_phrase(_summaries(default_specs, store))
    result = TuneResult(
        out, problem, sampler, seed, batch, planned, table, pareto, rerun_summary, rerun_long,
        window, counts,
    )  # fmt: skip
    _write(result, command)
    return result


def _points(
    table: pd.DataFrame,
    chosen: Sequence[int],
    problem: Problem,
    defaults: dict[str, Any],
    default_scores: list[float] | None,
) -> list[tuple[str, dict[str, Any], list[float] | None]]:
    """The chosen trials and the default point: (name, parameter values, scores in the study)."""
    metrics = [o.metric for o in problem.objectives]
    points = []
    for number in chosen:
        row = table[table["trial"] == number].iloc[0]
        values = {p.name: row[p.name] for p in problem.params}
        points.append((f"trial {number}", values, [float(row[m]) for m in metrics]))
    points.append((fr.DEFAULT_POINT, dict(defaults), default_scores))
    return points


def _summaries(specs: Sequence[RunSpec], store: RunStore):
    import pandas as pd

    rows = [store.read(s.run_id)["summary"] for s in specs if store.has(s.run_id)]
    return pd.DataFrame(rows) if rows else None


def title(result: TuneResult) -> str:
    p = result.problem
    name = _core.catalog()["aqm_titles"].get(p.aqm, p.aqm)
    source = p.source.name + (" (quick)" if p.source.quick else "")
    on_front = int(result.trials["on_front"].sum())
    return (
        f"{name} tuned on {source}: {len(result.trials)} trials, {on_front} on the Pareto front\n"
        f"each trial: mean over {p.grid_text()}; {result.window}"
    )


OUTPUT_TABLES = ("trials", "pareto", "rerun", "rerun_seeds")


def _write(result: TuneResult, command: str) -> None:
    from .figure import plot_front

    out = result.out_dir
    for name, df in zip(
        OUTPUT_TABLES, (result.trials, result.pareto, result.rerun, result.rerun_seeds)
    ):
        write_table(df, out, name)
    plot_front(
        result.trials, result.pareto, result.rerun, result.problem.objectives, title(result), out
    )
    files = [STUDY_FILE, STORAGE_FILE, "runs/"]
    files += [f"{n}.parquet, {n}.csv" for n in OUTPUT_TABLES]
    files += ["pareto.png, pareto.svg", "report.md"]
    text = fr.report(
        title(result).splitlines()[0],
        command or f"aqmlab tune {result.problem.aqm}",
        result.summary_lines(),
        result.front_text(),
        result.rerun_text(),
        files,
    )
    write_file(out / "report.md", text)
