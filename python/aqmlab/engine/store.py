"""The on-disk store of finished runs: one JSON record per run under `<out>/runs/` (its
summary and its per-port table), plus Parquet time series for runs that keep their traces
(the port the summary describes, and every port's for a network of several) and the per-run
tables a sweep keeps (`<run id>.<table>.parquet`: probes, flows, groups, fct). Every file is
listed in the folder's marker and written to a temporary name and renamed
(`aqmlab.engine.outdir.write_file`), so an interrupted sweep leaves only complete records behind. A
run travels as bytes (`encode_record`, `parquet_bytes`) from where it was simulated to the
process that stores it, so the files are the same wherever the run was made."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .outdir import remove_stale_temporaries, write_file
from .parquet import parquet_bytes
from .result import _json_safe

if TYPE_CHECKING:
    import pandas as pd

RUNS_DIR = "runs"
TRACES_SUFFIX = ".timeseries.parquet"
PORT_TRACES_SUFFIX = ".port_timeseries.parquet"


def encode_record(record: Mapping[str, Any]) -> bytes:
    """A run's record as the stored JSON (sorted keys, NaN as null)."""
    text = json.dumps(_json_safe(dict(record)), sort_keys=True, indent=1, allow_nan=False)
    return (text + "\n").encode()


class RunStore:
    """Finished runs of one output folder, keyed by run id."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root) / RUNS_DIR

    def record_path(self, run_id: str) -> Path:
        return self.root / f"{run_id}.json"

    def traces_path(self, run_id: str) -> Path:
        return self.root / f"{run_id}{TRACES_SUFFIX}"

    def port_traces_path(self, run_id: str) -> Path:
        return self.root / f"{run_id}{PORT_TRACES_SUFFIX}"

    def table_path(self, run_id: str, name: str) -> Path:
        """Where the run's table `name` (probes, flows, groups, fct) is kept."""
        return self.root / f"{run_id}.{name}.parquet"

    def has(self, run_id: str, traces: bool = False, tables: Sequence[str] = ()) -> bool:
        """Whether the run is stored (with its time series, when `traces`, and with each
        table of `tables`)."""
        if not self.record_path(run_id).is_file():
            return False
        if traces and not self.traces_path(run_id).is_file():
            return False
        return all(self.table_path(run_id, name).is_file() for name in tables)

    def clean_temporary(self) -> None:
        """Remove the temporary files an interrupted write may have left."""
        remove_stale_temporaries(self.root)

    def write(
        self,
        run_id: str,
        record: Mapping[str, Any],
        timeseries: pd.DataFrame | None = None,
        port_timeseries: pd.DataFrame | None = None,
        tables: Mapping[str, pd.DataFrame] | None = None,
    ) -> None:
        """Store a finished run from its record and tables (see `write_encoded`)."""
        self.write_encoded(
            run_id,
            encode_record(record),
            None if timeseries is None else parquet_bytes(timeseries),
            None if port_timeseries is None else parquet_bytes(port_timeseries),
            {name: parquet_bytes(df) for name, df in (tables or {}).items()},
        )

    def write_encoded(
        self,
        run_id: str,
        record: bytes,
        timeseries: bytes | None = None,
        port_timeseries: bytes | None = None,
        tables: Mapping[str, bytes] | None = None,
    ) -> None:
        """Store a finished run given as file contents: the time series and tables first, then
        the JSON record, which marks the run as done."""
        if timeseries is not None:
            write_file(self.traces_path(run_id), timeseries)
        if port_timeseries is not None:
            write_file(self.port_traces_path(run_id), port_timeseries)
        for name, content in (tables or {}).items():
            write_file(self.table_path(run_id, name), content)
        write_file(self.record_path(run_id), record)

    def read(self, run_id: str) -> dict[str, Any]:
        """The stored record; null metrics come back as NaN."""
        with open(self.record_path(run_id), encoding="utf-8") as f:
            record = json.load(f)
        record["summary"] = {k: math.nan if v is None else v for k, v in record["summary"].items()}
        return record

    def read_traces(self, run_id: str) -> pd.DataFrame:
        import pandas as pd

        return pd.read_parquet(self.traces_path(run_id))

    def read_port_traces(self, run_id: str) -> pd.DataFrame:
        """Every port's time series (long: a `port` column); empty for a one-port run."""
        import pandas as pd

        path = self.port_traces_path(run_id)
        return pd.read_parquet(path) if path.is_file() else pd.DataFrame()

    def read_table(self, run_id: str, name: str) -> pd.DataFrame:
        """The run's kept table `name` (probes, flows, groups, fct), as `aqmlab run` writes it;
        `FileNotFoundError` when the run was stored without it."""
        import pandas as pd

        return pd.read_parquet(self.table_path(run_id, name))

    def read_ports(self, run_id: str) -> pd.DataFrame:
        """The run's per-port table (one row per measured port); empty for a run stored
        before the store kept it."""
        import pandas as pd

        return pd.DataFrame(self.read(run_id).get("ports", {}))

    def ids(self) -> set[str]:
        """The ids of every stored run."""
        if not self.root.is_dir():
            return set()
        return {p.name[: -len(".json")] for p in self.root.glob("*.json")}
