"""Run the grid of one or more experiments on local worker processes or a Ray cluster
(`ray`), storing every run as it finishes and skipping the runs already stored.

Wherever a run is simulated, it comes back to this process as the bytes of its stored files
(`FinishedRun`), and this process alone writes them (`RunStore.write_encoded`): workers need
no shared filesystem, and both backends store through the same code."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..engine.memory import check_run
from ..engine.outdir import open_resumable
from ..engine.parquet import write_table
from ..engine.store import RunStore
from .experiment import Experiment, RunSpec
from .interrupt import Interrupted
from .progress import Progress
from .runs import BACKENDS, BackendError, FinishedRun, simulate, store_run
from .workers import init_worker

if TYPE_CHECKING:
    import pandas as pd


class SweepError(RuntimeError):
    """Some runs of a sweep failed; the others are stored."""


@dataclass
class SweepOutcome:
    """What a call to `execute` did."""

    total: int = 0
    skipped: int = 0
    ran: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    retried: list[tuple[str, str]] = field(default_factory=list)
    """Runs that failed once and were run again (stored unless also in `failed`), with the
    first error."""
    wall_s: float = 0.0
    cpu_s: float = 0.0
    """CPU seconds of the simulations run now (summed over workers)."""

    def add(self, other: SweepOutcome) -> None:
        """Count `other`'s runs too (a command that calls `execute` more than once)."""
        self.total += other.total
        self.ran += other.ran
        self.skipped += other.skipped
        self.failed += other.failed
        self.retried += other.retried
        self.wall_s += other.wall_s
        self.cpu_s += other.cpu_s


def default_jobs() -> int:
    return os.cpu_count() or 1


def unique_runs(specs: Iterable[RunSpec]) -> list[RunSpec]:
    """One spec per run id, in first-seen order; a run keeps its traces, and each table, when
    any experiment that shares it asks for them."""
    by_id: dict[str, RunSpec] = {}
    for spec in specs:
        seen = by_id.get(spec.run_id)
        if seen is None:
            by_id[spec.run_id] = spec
            continue
        tables = seen.tables + tuple(t for t in spec.tables if t not in seen.tables)
        if (spec.traces and not seen.traces) or tables != seen.tables:
            by_id[spec.run_id] = replace(seen, traces=seen.traces or spec.traces, tables=tables)
    return list(by_id.values())


class SweepInterrupted(Interrupted):
    """Ctrl-C or SIGTERM stopped a sweep; the finished runs are stored."""

    def __init__(self, signum: int, stored: int, total: int, out_dir: Path) -> None:
        super().__init__(
            signum,
            f"{stored} of {total} runs are stored in {out_dir}; "
            "run the same command again to resume",
        )


class Pool(Protocol):
    """Where runs are simulated: `submit` hands back a future of the finished run."""

    def slots(self) -> int:
        """How many runs to keep submitted at once."""
        ...

    def submit(self, spec: RunSpec) -> Future[FinishedRun]: ...

    def close(self, running: Iterable[Future[FinishedRun]], interrupted: bool) -> None:
        """Stop: when `interrupted`, let the runs in progress finish (their futures are then
        done) and drop the queued ones; otherwise drop every run still in `running`."""
        ...


class _InlinePool:
    """Runs simulated one at a time in this process."""

    def slots(self) -> int:
        return 1

    def submit(self, spec: RunSpec) -> Future[FinishedRun]:
        future: Future[FinishedRun] = Future()
        try:
            future.set_result(simulate(spec))
        except Exception as e:  # a failed run is the future's error
            future.set_exception(e)
        return future

    def close(self, running: Iterable[Future[FinishedRun]], interrupted: bool) -> None:
        pass


class _ProcessPool:
    """Local worker processes that end with this one (`workers.init_worker`)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.executor = ProcessPoolExecutor(
            max_workers=workers, initializer=init_worker, initargs=(os.getpid(),)
        )

    def slots(self) -> int:
        return 2 * self.workers  # so that Ctrl-C has little queued to drop

    def submit(self, spec: RunSpec) -> Future[FinishedRun]:
        return self.executor.submit(simulate, spec)

    def close(self, running: Iterable[Future[FinishedRun]], interrupted: bool) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


@contextmanager
def connected(
    backend: str = "local", address: str | None = None, jobs: int | None = None
) -> Iterator[None]:
    """Check the backend and, for Ray, connect to the cluster for the duration of the block
    (`execute` calls inside it use that connection). Raises `BackendError`."""
    if backend == "ray":
        from .ray import connect

        with connect(address, jobs):
            yield
        return
    if backend not in BACKENDS:
        raise BackendError(f"--backend {backend}: unknown backend; allowed: {', '.join(BACKENDS)}")
    if address is not None:
        raise BackendError(f"--address {address}: only with --backend ray")
    yield


@contextmanager
def _open_pool(backend: str, address: str | None, jobs: int | None, pending: int) -> Iterator[Pool]:
    with connected(backend, address, jobs):
        if backend == "ray":
            from .ray import RayPool

            yield RayPool(jobs)
            return
        workers = min(max(1, jobs or default_jobs()), pending)
        yield _InlinePool() if workers <= 1 else _ProcessPool(workers)


def execute(
    specs: Sequence[RunSpec],
    out_dir: str | os.PathLike[str],
    jobs: int | None = None,
    progress: bool = True,
    desc: str = "runs",
    backend: str = "local",
    address: str | None = None,
    kind: str = "sweep",
    overwrite: bool = False,
    max_memory: str | int | None = None,
) -> SweepOutcome:
    """Run every spec not yet stored under `out_dir`/runs.

    Every run is first checked to fit the memory budget (`max_memory`, `aqmlab.engine.memory`; it
    applies to each run, one per worker), and `MemoryBudgetError` raised before anything is
    written when one does not.

    `out_dir` is opened as a resumable result of `kind` ("sweep", "reproduce", "bridge"; see
    `aqmlab.engine.outdir`, `overwrite` included) once the backend is known to work, so that an
    unusable backend or a folder aqmlab must not write leaves nothing written.

    `backend` "local" runs `jobs` worker processes (default: one per CPU); "ray" runs on the
    Ray cluster at `address` (`ray.connect`), `jobs` runs at a time (default: the
    cluster's CPUs). Either way this process stores each run as it comes back. A failed run
    is run once more; if it fails again it is collected in the outcome (nothing is stored for
    it) while the others go on. On Ctrl-C or SIGTERM the runs in progress finish and are
    stored, queued ones are dropped, and `SweepInterrupted` (a KeyboardInterrupt)
    propagates. Workers end with this process, even when it is killed. Raises
    `BackendError` (before anything is written) for a backend that cannot be used.
    """
    t0 = time.perf_counter()
    runs = unique_runs(specs)
    for spec in runs:
        check_run(spec.scenario_text, (), spec.seed, max_memory)
    with _open_pool(backend, address, jobs, len(runs)) as pool:
        open_resumable(out_dir, kind, overwrite)
        store = RunStore(out_dir)
        store.clean_temporary()
        pending = [s for s in runs if not store.has(s.run_id, s.traces, s.tables)]
        outcome = SweepOutcome(total=len(runs), skipped=len(runs) - len(pending))
        bar = Progress(len(runs), desc, "runs", enabled=progress, initial=outcome.skipped)
        try:
            _run_all(pool, pending, lambda run: store_run(store, run), bar, outcome)
        except KeyboardInterrupt as e:
            stored = len(store.ids() & {s.run_id for s in runs})
            signum = e.signum if isinstance(e, Interrupted) else Interrupted.SIGINT
            raise SweepInterrupted(signum, stored, len(runs), Path(out_dir)) from None
        finally:
            bar.close()
            outcome.wall_s = time.perf_counter() - t0
    return outcome


def _run_all(
    pool: Pool,
    pending: Sequence[RunSpec],
    store: Callable[[FinishedRun], None],
    bar: Progress,
    outcome: SweepOutcome,
) -> None:
    """Keep `pool.slots()` runs submitted, store each as it finishes, run a failed one once
    more; on any exit, runs that finished in the pool are stored first."""
    queue = deque(pending)
    running: dict[Future[FinishedRun], RunSpec] = {}
    failed_once: set[str] = set()

    def finish(future: Future[FinishedRun], spec: RunSpec) -> None:
        try:
            run = future.result()
            store(run)
        except Exception as e:  # a failed run must not stop the sweep
            message = _one_line(e)
            if spec.run_id not in failed_once:
                failed_once.add(spec.run_id)
                outcome.retried.append((spec.run_id, message))
                queue.appendleft(spec)
                return
            outcome.failed.append((spec.run_id, message))
        else:
            outcome.ran += 1
            outcome.cpu_s += run.cpu_s
        bar.update(1)

    try:
        while queue or running:
            while queue and len(running) < pool.slots():
                spec = queue.popleft()
                running[pool.submit(spec)] = spec
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                finish(future, running.pop(future))
    except BaseException as e:
        pool.close(running, interrupted=isinstance(e, KeyboardInterrupt))
        for future in running:
            if future.done() and not future.cancelled() and future.exception() is None:
                with suppress(Exception):  # a run that cannot be stored is run on resume
                    store(future.result())
        raise
    pool.close((), interrupted=False)


def _one_line(e: BaseException) -> str:
    text = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def table(experiment: Experiment, specs: Sequence[RunSpec], store: RunStore) -> pd.DataFrame:
    """The tidy table of an experiment: one row per stored run, the grid's parameter columns
    (and `seed`) first, then every summary metric. Runs not stored are left out."""
    import pandas as pd

    rows = []
    for spec in specs:
        if not store.has(spec.run_id):
            continue
        summary = store.read(spec.run_id)["summary"]
        row = {"experiment": experiment.name, "run_id": spec.run_id, **spec.params}
        row.update({k: v for k, v in summary.items() if k not in row})
        rows.append(row)
    return pd.DataFrame(rows)


def sweep(
    experiment: Experiment | str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    jobs: int | None = None,
    progress: bool = True,
    overwrite: bool = False,
    backend: str = "local",
    address: str | None = None,
    max_memory: str | int | None = None,
) -> pd.DataFrame:
    """Run an experiment file (resuming from `out_dir`) and return its tidy table; writes
    `results.parquet` and `results.csv` into `out_dir`. `backend` and `address` say where
    the runs are simulated, `max_memory` the budget of each run (`execute`). Raises
    `SweepError` when runs fail, and, before any run, `OutputError` for a folder aqmlab must
    not write (`aqmlab.engine.outdir`), `MemoryBudgetError` for a run above the memory budget and
    `BackendError` for a backend that cannot be used."""
    if not isinstance(experiment, Experiment):
        experiment = Experiment.load(experiment, quick=quick)
    specs = experiment.runs()
    outcome = execute(
        specs,
        out_dir,
        jobs,
        progress,
        experiment.name,
        backend,
        address,
        "sweep",
        overwrite,
        max_memory,
    )
    if outcome.failed:
        run, message = outcome.failed[0]
        raise SweepError(f"{len(outcome.failed)} run(s) failed; first, {run}: {message}")
    store = RunStore(out_dir)
    df = table(experiment, specs, store)
    write_table(df, out_dir, "results")
    for name, kept in load_tables(experiment, specs, store).items():
        write_table(kept, out_dir, name)
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


def load_point_traces(specs: Sequence[RunSpec], store: RunStore) -> dict[str, pd.DataFrame]:
    """The stored time series of the first stored run (lowest seed) of each grid point, keyed
    by run id (`plot.kind = "coexistence"` draws one run per point)."""
    out: dict[str, pd.DataFrame] = {}
    seen: set[tuple] = set()
    for spec in sorted(specs, key=lambda s: s.seed):
        point = tuple(sorted((k, repr(v)) for k, v in spec.params.items() if k != "seed"))
        if point not in seen and store.has(spec.run_id, traces=True):
            seen.add(point)
            out[spec.run_id] = store.read_traces(spec.run_id)
    return out


def load_table(specs: Sequence[RunSpec], store: RunStore, name: str) -> pd.DataFrame:
    """One kept per-run table (`RunSpec.tables`: probes, flows, groups, fct) of every stored run
    that kept it, stacked: `run_id`, the grid's parameter columns and `seed`, then the table's
    own columns. Runs not stored, or stored without the table, are left out."""
    import pandas as pd

    frames = []
    for spec in specs:
        if not store.has(spec.run_id, tables=(name,)):
            continue
        df = store.read_table(spec.run_id, name)
        front = {"run_id": spec.run_id, **spec.params}
        own = [c for c in df.columns if c not in front]
        frames.append(df[own].assign(**front)[[*front, *own]])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def load_tables(
    experiment: Experiment, specs: Sequence[RunSpec], store: RunStore
) -> dict[str, pd.DataFrame]:
    """Every table the experiment keeps (`Experiment.tables`), as `load_table` stacks it."""
    return {name: load_table(specs, store, name) for name in experiment.tables}
