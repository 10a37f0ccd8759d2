"""One run of a sweep as it travels: simulated on a worker (a local process or a Ray task), it
comes back as the bytes of its stored files (`FinishedRun`), which the process that drives the
sweep writes (`store_run`), so the files are the same wherever the run was made."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .. import _core
from ..engine.parquet import parquet_bytes
from ..engine.result import RunResult
from ..engine.store import RunStore, encode_record
from .experiment import RunSpec
from .usage import BACKENDS as BACKENDS
from .usage import BackendError as BackendError


@dataclass(frozen=True)
class FinishedRun:
    """A simulated run as the contents of its stored files."""

    run_id: str
    aqmlab_version: str
    record: bytes
    timeseries: bytes | None
    port_timeseries: bytes | None
    cpu_s: float
    tables: tuple[tuple[str, bytes], ...] = ()
    """The kept per-run tables (`RunSpec.tables`) as (name, Parquet bytes)."""


def simulate(spec: RunSpec) -> FinishedRun:
    """Simulate one run and encode its record, time series and kept tables (on a worker)."""
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
    several_ports = len(out["ports"].get("port", [])) > 1
    timeseries = parquet_bytes(out["timeseries"]) if spec.traces else None
    port_timeseries = (
        parquet_bytes(out["port_timeseries"]) if spec.traces and several_ports else None
    )
    tables: tuple[tuple[str, bytes], ...] = ()
    if spec.tables:
        result = RunResult.from_core(out)
        tables = tuple((name, result.parquet_bytes(name)) for name in spec.tables)
    return FinishedRun(
        spec.run_id,
        _core.version(),
        encode_record(record),
        timeseries,
        port_timeseries,
        cpu_s,
        tables,
    )


def store_run(store: RunStore, run: FinishedRun) -> None:
    """Write a finished run (in the process that drives the sweep)."""
    if run.aqmlab_version != _core.version():
        raise RuntimeError(
            f"the worker runs aqmlab {run.aqmlab_version}, this sweep {_core.version()}: "
            "install the same version on every node"
        )
    store.write_encoded(
        run.run_id, run.record, run.timeseries, run.port_timeseries, dict(run.tables)
    )
