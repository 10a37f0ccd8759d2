"""The on-disk store of finished runs: one JSON record per run under `<out>/runs/`, plus a
Parquet time series for runs that keep their traces. Every file is written to a temporary
name and renamed, so an interrupted sweep leaves only complete records behind."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .result import _json_safe, _write_parquet

RUNS_DIR = "runs"
TRACES_SUFFIX = ".timeseries.parquet"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class RunStore:
    """Finished runs of one output folder, keyed by run id."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root) / RUNS_DIR

    def record_path(self, run_id: str) -> Path:
        return self.root / f"{run_id}.json"

    def traces_path(self, run_id: str) -> Path:
        return self.root / f"{run_id}{TRACES_SUFFIX}"

    def has(self, run_id: str, traces: bool = False) -> bool:
        """Whether the run is stored (with its time series, when `traces`)."""
        if not self.record_path(run_id).is_file():
            return False
        return not traces or self.traces_path(run_id).is_file()

    def clean_temporary(self) -> None:
        """Remove the temporary files an interrupted write may have left."""
        if self.root.is_dir():
            for stale in self.root.glob(".*.tmp-*"):
                stale.unlink(missing_ok=True)

    def write(
        self,
        run_id: str,
        record: Mapping[str, Any],
        timeseries: pd.DataFrame | None = None,
    ) -> None:
        """Store a finished run: the time series first, then the JSON record, which marks the
        run as done."""
        self.root.mkdir(parents=True, exist_ok=True)
        if timeseries is not None:
            tmp = self.traces_path(run_id)
            tmp = tmp.with_name(f".{tmp.name}.tmp-{os.getpid()}")
            try:
                _write_parquet(timeseries, tmp)
                os.replace(tmp, self.traces_path(run_id))
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
        text = json.dumps(_json_safe(dict(record)), sort_keys=True, indent=1, allow_nan=False)
        _atomic_write_bytes(self.record_path(run_id), (text + "\n").encode())

    def read(self, run_id: str) -> dict[str, Any]:
        """The stored record; null metrics come back as NaN."""
        with open(self.record_path(run_id), encoding="utf-8") as f:
            record = json.load(f)
        record["summary"] = {k: math.nan if v is None else v for k, v in record["summary"].items()}
        return record

    def read_traces(self, run_id: str) -> pd.DataFrame:
        return pd.read_parquet(self.traces_path(run_id))

    def ids(self) -> set[str]:
        """The ids of every stored run."""
        if not self.root.is_dir():
            return set()
        return {p.name[: -len(".json")] for p in self.root.glob("*.json")}
