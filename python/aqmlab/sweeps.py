"""Run the grid of one or more experiments on local worker processes, storing every run as
it finishes and skipping the runs already stored."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from . import _core
from .experiment import Experiment, RunSpec
from .interrupt import Interrupted
from .outdir import open_resumable
from .progress import Progress
from .result import _write_parquet
from .store import RunStore
from .workers import init_worker


class SweepError(RuntimeError):
    """Some runs of a sweep failed; the others are stored."""


@dataclass
class SweepOutcome:
    """What a call to `execute` did."""

    total: int = 0
    skipped: int = 0
    ran: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    """CPU seconds of the simulations run now (summed over workers)."""


def default_jobs() -> int:
    return os.cpu_count() or 1


def unique_runs(specs: Iterable[RunSpec]) -> list[RunSpec]:
    """One spec per run id, in first-seen order; a run keeps its traces when any experiment
    that shares it asks for them."""
    by_id: dict[str, RunSpec] = {}
    for spec in specs:
        seen = by_id.get(spec.run_id)
        if seen is None:
            by_id[spec.run_id] = spec
        elif spec.traces and not seen.traces:
            by_id[spec.run_id] = replace(seen, traces=True)
    return list(by_id.values())


def run_and_store(root: str, spec: RunSpec) -> tuple[str, float, float]:
    """Simulate one run and store it under `root`; returns (run id, wall seconds, CPU
    seconds) of the simulation."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = _core.run_scenario(spec.scenario_text, [], spec.seed, None)
    wall_s, cpu_s = time.perf_counter() - t0, time.process_time() - c0
    record = {
        "run_id": spec.run_id,
        "seed": spec.seed,
        "aqmlab_version": _core.version(),
        "scenario": out["scenario"],
        "summary": out["summary"],
        "ports": out["ports"],
        "traces": spec.traces,
        "wall_s": round(wall_s, 3),
        "cpu_s": round(cpu_s, 3),
    }
    timeseries = pd.DataFrame(out["timeseries"]) if spec.traces else None
    several_ports = len(out["ports"].get("port", [])) > 1
    port_timeseries = (
        pd.DataFrame(out["port_timeseries"]) if spec.traces and several_ports else None
    )
    RunStore(root).write(spec.run_id, record, timeseries, port_timeseries)
    return spec.run_id, wall_s, cpu_s


class SweepInterrupted(Interrupted):
    """Ctrl-C or SIGTERM stopped a sweep; the finished runs are stored."""

    def __init__(self, signum: int, stored: int, total: int, out_dir: Path) -> None:
        super().__init__(
            signum,
            f"{stored} of {total} runs are stored in {out_dir}; "
            "run the same command again to resume",
        )


def execute(
    specs: Sequence[RunSpec],
    out_dir: str | os.PathLike[str],
    jobs: int | None = None,
    progress: bool = True,
    desc: str = "runs",
) -> SweepOutcome:
    """Run every spec not yet stored under `out_dir`/runs, `jobs` at a time.

    Finished runs are stored as they complete. On Ctrl-C or SIGTERM the runs in progress
    finish and are stored, queued ones are dropped, and `SweepInterrupted` (a
    KeyboardInterrupt) propagates. Failed runs are collected in the outcome (nothing is stored
    for them) while the others go on. Workers end with this process, even when it is killed.
    """
    t0 = time.perf_counter()
    store = RunStore(out_dir)
    store.clean_temporary()
    runs = unique_runs(specs)
    pending = [s for s in runs if not store.has(s.run_id, s.traces)]
    outcome = SweepOutcome(total=len(runs), skipped=len(runs) - len(pending))
    jobs = max(1, jobs or default_jobs())
    root = os.fspath(out_dir)
    bar = Progress(len(runs), desc, "runs", enabled=progress, initial=outcome.skipped)
    try:
        if jobs == 1 or len(pending) <= 1:
            for spec in pending:
                try:
                    outcome.cpu_s += run_and_store(root, spec)[2]
                    outcome.ran += 1
                except Exception as e:  # a failed run must not stop the sweep
                    outcome.failed.append((spec.run_id, _one_line(e)))
                bar.update(1)
        else:
            _execute_pool(pending, root, min(jobs, len(pending)), bar, outcome)
    except KeyboardInterrupt as e:
        stored = len(store.ids() & {s.run_id for s in runs})
        signum = e.signum if isinstance(e, Interrupted) else Interrupted.SIGINT
        raise SweepInterrupted(signum, stored, len(runs), Path(out_dir)) from None
    finally:
        bar.close()
        outcome.wall_s = time.perf_counter() - t0
    return outcome


def _execute_pool(
    pending: Sequence[RunSpec], root: str, workers: int, bar: Progress, outcome: SweepOutcome
) -> None:
    executor = ProcessPoolExecutor(
        max_workers=workers, initializer=init_worker, initargs=(os.getpid(),)
    )
    try:
        # Keep at most two runs per worker queued, so Ctrl-C drops the rest at once.
        queue = list(reversed(pending))
        running: dict[Future, RunSpec] = {}

        def submit_more() -> None:
            while queue and len(running) < 2 * workers:
                spec = queue.pop()
                running[executor.submit(run_and_store, root, spec)] = spec

        submit_more()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                spec = running.pop(future)
                try:
                    outcome.cpu_s += future.result()[2]
                    outcome.ran += 1
                except Exception as e:
                    outcome.failed.append((spec.run_id, _one_line(e)))
                bar.update(1)
            submit_more()
    except BaseException:
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)


def _one_line(e: BaseException) -> str:
    text = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def table(experiment: Experiment, specs: Sequence[RunSpec], store: RunStore) -> pd.DataFrame:
    """The tidy table of an experiment: one row per stored run, the grid's parameter columns
    (and `seed`) first, then every summary metric. Runs not stored are left out."""
    rows = []
    for spec in specs:
        if not store.has(spec.run_id):
            continue
        summary = store.read(spec.run_id)["summary"]
        row = {"experiment": experiment.name, "run_id": spec.run_id, **spec.params}
        row.update({k: v for k, v in summary.items() if k not in row})
        rows.append(row)
    return pd.DataFrame(rows)


def write_table(df: pd.DataFrame, directory: str | os.PathLike[str], stem: str) -> list[Path]:
    """Write `df` as `<stem>.parquet` and `<stem>.csv` in `directory` (each atomically)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for suffix in (".parquet", ".csv"):
        path = directory / f"{stem}{suffix}"
        tmp = directory / f".{stem}{suffix}.tmp-{os.getpid()}"
        try:
            if suffix == ".parquet":
                _write_parquet(df, tmp)
            else:
                df.to_csv(tmp, index=False, lineterminator="\n")
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        paths.append(path)
    return paths


def sweep(
    experiment: Experiment | str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    jobs: int | None = None,
    progress: bool = True,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Run an experiment file (resuming from `out_dir`) and return its tidy table; writes
    `results.parquet` and `results.csv` into `out_dir`. Raises `SweepError` when runs fail,
    `OutputError` (before any run) for a folder aqmlab must not write (`aqmlab.outdir`)."""
    if not isinstance(experiment, Experiment):
        experiment = Experiment.load(experiment, quick=quick)
    specs = experiment.runs()
    open_resumable(out_dir, "sweep", overwrite)
    outcome = execute(specs, out_dir, jobs=jobs, progress=progress, desc=experiment.name)
    if outcome.failed:
        run, message = outcome.failed[0]
        raise SweepError(f"{len(outcome.failed)} run(s) failed; first, {run}: {message}")
    df = table(experiment, specs, RunStore(out_dir))
    write_table(df, out_dir, "results")
    return df


def load_traces(
    experiment: Experiment, specs: Sequence[RunSpec], store: RunStore
) -> dict[object, pd.DataFrame]:
    """The stored time series of a traces experiment, keyed by the value of its
    `plot.lines` axis (the first stored run of each value: lowest seed, first grid point)."""
    key = experiment.plot.lines
    out: dict[object, pd.DataFrame] = {}
    for spec in sorted(specs, key=lambda s: s.seed):
        value = spec.params.get(key) if key else None
        if value not in out and store.has(spec.run_id, traces=True):
            out[value] = store.read_traces(spec.run_id)
    return out
