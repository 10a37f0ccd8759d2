"""The Optuna study of a tuning problem, kept in its output folder so that it resumes.

`DIR/study.json` names the study the folder belongs to (AQM, experiment, parameters and ranges,
objectives, sampler, seed, batch); `DIR/study.db` is Optuna's SQLite storage. Trials are asked
in batches of `batch` (trial numbers k·batch … (k+1)·batch − 1), each batch's runs simulated
together, and told in trial order; the sampler of trial n is seeded from (seed, n) alone. A
trial therefore depends only on the trials before its batch, which makes a study reproducible
whatever `--jobs`, `--backend` or interruptions: trials asked but not told when a command
stopped are evaluated first when it runs again."""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.outdir import (
    check_target,
    claim,
    clear_result,
    open_resumable,
    result_kind,
    signals_deferred,
    write_file,
)
from ..engine.store import RunStore
from ..sweeps.experiment import ExperimentError, RunSpec
from .errors import TuneError
from .problem import Problem

if TYPE_CHECKING:
    import optuna

STUDY_FILE = "study.json"
STORAGE_FILE = "study.db"
STUDY_NAME = "aqmlab-tune"
SAMPLERS = ("nsga2", "tpe")
KIND = "tune"
"""The kind of result in the output folder's marker."""


def import_optuna() -> Any:
    """Optuna, quiet; `TuneError` when it is not installed."""
    try:
        import optuna
    except ImportError:
        raise TuneError(
            "aqmlab tune needs optuna: pip install 'aqmlab[tune]' (or pip install optuna)"
        ) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def identity(problem: Problem, sampler: str, seed: int, batch: int) -> dict[str, Any]:
    """What makes two commands the same study (`study.json`)."""
    return {
        "aqm": problem.aqm,
        "experiment": problem.source.name + (" --quick" if problem.source.quick else ""),
        "experiment_sha256": problem.fingerprint(),
        "params": [p.spec() for p in problem.params],
        "objectives": [str(o) for o in problem.objectives],
        "sampler": sampler,
        "seed": seed,
        "batch": batch,
    }


def _describe(field: str, value: Any) -> str:
    if field == "params":
        return "parameters " + ", ".join(
            f"{p['name']} in [{p['low']:g}, {p['high']:g}]{' (log)' if p['log'] else ''}"
            for p in value
        )
    if field == "objectives":
        return "objectives " + ", ".join(value)
    if field == "experiment_sha256":
        return "experiment runs that differ (the file, its scenario or aqmlab changed)"
    return f"{field} {value}"


def mismatch(theirs: dict[str, Any], ours: dict[str, Any]) -> str:
    """How the study in a folder differs from this command's, in words."""
    for field, value in ours.items():
        if theirs.get(field) != value:
            ours_text = _describe(field, value)
            return f"it has {_describe(field, theirs.get(field))}, this command {ours_text}"
    return "it differs"


def _read_identity(out_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((out_dir / STUDY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def open_folder(out_dir: Path, ident: dict[str, Any], overwrite: bool) -> None:
    """Make `out_dir` ready for the study `ident`: a new folder, or one holding the same study
    (resumed), or with `overwrite` one holding another result (its files replaced). Another
    study without `overwrite` is a `TuneError`; nothing is written before the checks."""
    check_target(out_dir, KIND, overwrite)
    if result_kind(out_dir) == KIND:
        theirs = _read_identity(out_dir)
        if theirs != ident:
            if theirs is not None and not overwrite:
                raise TuneError(
                    f"--out {out_dir}: holds another tuning study ({mismatch(theirs, ident)}); "
                    "choose another folder, or pass --overwrite to replace it"
                )
            clear_result(out_dir)
    open_resumable(out_dir, KIND, overwrite)
    if _read_identity(out_dir) != ident:
        write_file(out_dir / STUDY_FILE, json.dumps(ident, indent=1) + "\n")


def load_study(out_dir: Path, problem: Problem) -> optuna.Study:
    """The study's Optuna storage in `out_dir` (created on first use)."""
    optuna = import_optuna()
    db = claim(out_dir / STORAGE_FILE)
    claim(out_dir / f"{STORAGE_FILE}-journal")  # SQLite's rollback journal, while it writes
    directions = ["maximize" if o.maximise else "minimize" for o in problem.objectives]
    with signals_deferred():
        storage = optuna.storages.RDBStorage(f"sqlite:///{db.resolve().as_posix()}")
        return optuna.create_study(
            storage=storage, study_name=STUDY_NAME, directions=directions, load_if_exists=True
        )


def trial_seed(seed: int, number: int) -> int:
    """The seed of trial `number`'s sampler: from the study's seed and the number alone."""
    digest = hashlib.sha256(f"aqmlab-tune {seed} {number}".encode()).hexdigest()
    return int(digest[:8], 16)


def make_sampler(kind: str, seed: int, batch: int) -> optuna.samplers.BaseSampler:
    optuna = import_optuna()
    if kind == "nsga2":
        return optuna.samplers.NSGAIISampler(population_size=batch, seed=seed)
    return optuna.samplers.TPESampler(seed=seed)


def distributions(problem: Problem) -> dict[str, Any]:
    optuna = import_optuna()
    out = {}
    for p in problem.params:
        if p.integer:
            out[p.name] = optuna.distributions.IntDistribution(int(p.low), int(p.high), log=p.log)
        else:
            out[p.name] = optuna.distributions.FloatDistribution(p.low, p.high, log=p.log)
    return out


def planned_trials(trials: int, batch: int) -> int:
    """`trials` rounded up to whole batches."""
    return math.ceil(trials / batch) * batch


Runner = Callable[[Sequence[RunSpec], str], None]
"""Simulates and stores the runs of a batch (`sweeps.execute` with the command's backend)."""


def _finished(study: optuna.Study) -> tuple[list[Any], list[Any]]:
    optuna = import_optuna()
    state = optuna.trial.TrialState
    trials = study.get_trials(deepcopy=False)
    told = [t for t in trials if t.state in (state.COMPLETE, state.FAIL)]
    running = [t for t in trials if t.state == state.RUNNING]
    return told, running


def told_count(study: optuna.Study) -> int:
    return len(_finished(study)[0])


def optimise(
    study: optuna.Study,
    problem: Problem,
    store: RunStore,
    sampler: str,
    seed: int,
    batch: int,
    trials: int,
    run: Runner,
) -> None:
    """Ask, simulate and tell batches until `planned_trials(trials, batch)` trials are told.
    Trials left running by an interrupted command are evaluated first. Ctrl-C and SIGTERM
    propagate from `run` (the runs stored so far are kept)."""
    optuna = import_optuna()
    space = distributions(problem)
    planned = planned_trials(trials, batch)
    while True:
        told, running = _finished(study)
        if len(told) >= planned and not running:
            return
        n = len(told) + len(running)
        if n % batch:
            end = n + batch - n % batch
        else:
            end = n if running else n + batch
        pending = [(t.number, dict(t.params)) for t in running]
        with signals_deferred():
            for number in range(n, end):
                study.sampler = make_sampler(sampler, trial_seed(seed, number), batch)
                asked = study.ask(space)
                pending.append((asked.number, dict(asked.params)))
        specs: dict[int, list[RunSpec] | str] = {}
        for number, params in pending:
            try:
                specs[number] = problem.specs(params)
            except ExperimentError as e:
                specs[number] = str(e)
        run(
            [s for v in specs.values() if not isinstance(v, str) for s in v],
            f"trials {pending[0][0] + 1}-{pending[-1][0] + 1} of {planned}",
        )
        with signals_deferred():
            for number, _ in pending:
                got = specs[number]
                values = None if isinstance(got, str) else problem.score(got, store)[0]
                if values is None:
                    study.tell(number, state=optuna.trial.TrialState.FAIL)
                else:
                    study.tell(number, values)


def failure(problem: Problem, params: dict[str, Any], store: RunStore) -> str:
    """Why a failed trial failed (from what is stored, so the same on every reading)."""
    try:
        specs = problem.specs(params)
    except ExperimentError as e:
        return str(e)
    return problem.score(specs, store)[1] or "failed"
