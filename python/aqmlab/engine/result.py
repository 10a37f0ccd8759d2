"""The outcome of one run as tables, and its deterministic on-disk form.

A run from the core keeps its tables as the core's columns and builds a pandas DataFrame only
when one is asked for: `aqmlab run` writes its Parquet files straight from the columns and never
imports pandas (docs/architecture.md, "Start-up and output").
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import _core
from . import parquet
from .outdir import staged

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

    from .parquet import Columns, Table

TABLES = (
    "summary",
    "timeseries",
    "flows",
    "groups",
    "cwnd",
    "ports",
    "port_timeseries",
    "fct",
    "probes",
)
"""The tables of a run; each is written as `<name>.parquet` (and `<name>.csv` on request)."""

SUMMARY_JSON = "summary.json"


def run_files(csv: bool = False) -> list[str]:
    """The names of the files `RunResult.write` writes into a run folder."""
    suffixes = (".parquet", ".csv") if csv else (".parquet",)
    return [f"{name}{suffix}" for name in TABLES for suffix in suffixes] + [SUMMARY_JSON]


FCT_INT_COLUMNS = ("group", "size_min_bytes", "flows", "completed")
"""The integer columns of the completion-time table; the others are float64, also when the
table has no rows (no finite flows), so every run writes the same schema."""

PROBE_INT_COLUMNS = ("flow", "group", "lost")
"""The integer columns of the probe table (`t_s` and `rtt_ms` are float64), also when it has no
rows (no probe flows)."""

_INT_COLUMNS = {"fct": FCT_INT_COLUMNS, "probes": PROBE_INT_COLUMNS}
"""The tables that keep their schema without rows, with their integer columns."""


def _json_safe(value: Any) -> Any:
    """Replace non-finite floats by None, recursively, so the JSON is strict."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _named_groups(columns: Columns, names: Sequence[str]) -> dict[str, list]:
    """A table with a `group` index column (the per-group table, the completion times) with
    each group's name after it."""
    items = list(columns.items())
    named = [names[int(g)] for g in columns.get("group", [])]
    return dict(items[:1] + [("name", named)] + items[1:])


def _dtypes(name: str, table: Table) -> dict[str, str]:
    """The dtypes table `name` given as columns keeps with or without rows: those of the
    completion-time and probe tables (every column but `name`); none for the others."""
    if name not in _INT_COLUMNS or not isinstance(table, Mapping):
        return {}
    ints = _INT_COLUMNS[name]
    return {k: "int64" if k in ints else "float64" for k in table if k != "name"}


def _frame(table: Table, dtypes: Mapping[str, str]) -> pd.DataFrame:
    """A table as a DataFrame (columns of `dtypes` with that dtype)."""
    if not isinstance(table, Mapping):
        return table
    import pandas as pd

    return pd.DataFrame(
        {k: pd.Series(v, dtype=dtypes[k]) if k in dtypes else v for k, v in table.items()}
    )


class RunResult:
    """Summary (one row), time series, per-port, per-flow and per-group tables, completion
    times, latency probes and cwnd traces of one run, with the provenance needed to repeat it.

    Each table is given as a DataFrame or as columns (a mapping of column name to values) and
    read as a DataFrame (`result.timeseries`, ...); `records(name)` gives its rows as dicts.
    """

    def __init__(
        self,
        summary: Mapping[str, Any],
        timeseries: Table,
        flows: Table,
        cwnd: Table,
        scenario_text: str,
        seed: int,
        source: str | None = None,
        overrides: Sequence[tuple[str, str]] = (),
        groups: Table | None = None,
        ports: Table | None = None,
        port_timeseries: Table | None = None,
        fct: Table | None = None,
        probes: Table | None = None,
    ) -> None:
        self.summary_dict = dict(summary)
        self._tables: dict[str, Table] = {
            "summary": {k: [v] for k, v in self.summary_dict.items()},
            "timeseries": timeseries,
            "flows": flows,
            "groups": groups if groups is not None else {},
            "cwnd": cwnd,
            "ports": ports if ports is not None else {},
            "port_timeseries": port_timeseries if port_timeseries is not None else {},
            "fct": fct if fct is not None else {},
            "probes": probes if probes is not None else {},
        }
        self.scenario_text = scenario_text
        self.seed = int(seed)
        self.source = source
        self.overrides = [(str(k), str(v)) for k, v in overrides]

    def table(self, name: str) -> pd.DataFrame:
        """The table `name` (one of `TABLES`) as a DataFrame, built once."""
        frame = _frame(self._tables[name], _dtypes(name, self._tables[name]))
        self._tables[name] = frame
        return frame

    def parquet_bytes(self, name: str) -> bytes:
        """Table `name` (one of `TABLES`) as the Parquet file `write` writes for it."""
        return parquet.parquet_bytes(self._tables[name], _dtypes(name, self._tables[name]))

    def rows(self, name: str) -> int:
        """The number of rows of table `name`."""
        table = self._tables[name]
        if isinstance(table, Mapping):
            return len(next(iter(table.values()), []))
        return len(table)

    def records(self, name: str) -> list[dict[str, Any]]:
        """The rows of table `name` as dicts, column name -> value."""
        table = self._tables[name]
        if isinstance(table, Mapping):
            return [dict(zip(table, row)) for row in zip(*table.values())]
        return table.to_dict("records")

    summary = property(lambda self: self.table("summary"), doc="The summary, one row.")
    timeseries = property(lambda self: self.table("timeseries"), doc="The sampled queue.")
    flows = property(lambda self: self.table("flows"), doc="One row per flow.")
    groups = property(lambda self: self.table("groups"), doc="One row per flow group.")
    cwnd = property(lambda self: self.table("cwnd"), doc="The traced flows' cwnd.")
    ports = property(lambda self: self.table("ports"), doc="One row per measured port.")
    port_timeseries = property(
        lambda self: self.table("port_timeseries"), doc="Every measured port, sampled."
    )
    fct = property(lambda self: self.table("fct"), doc="Completion times of finite flows.")
    probes = property(lambda self: self.table("probes"), doc="One row per latency probe.")

    @classmethod
    def from_core(
        cls,
        out: Mapping[str, Any],
        source: str | None = None,
        overrides: Sequence[tuple[str, str]] = (),
    ) -> RunResult:
        """Wrap the dict returned by `_core.run_scenario` (its tables stay columns; its
        `group_names` name the traffic groups, `all` for a scenario with one
        `[traffic.schedule]`)."""
        names = out["group_names"]
        return cls(
            summary=out["summary"],
            timeseries=out["timeseries"],
            flows=out["flows"],
            cwnd=out["cwnd"],
            scenario_text=out["scenario"],
            seed=out["seed"],
            source=source,
            overrides=overrides,
            groups=_named_groups(out["groups"], names),
            ports=out["ports"],
            port_timeseries=out["port_timeseries"],
            fct=_named_groups(out["fct"], names),
            probes=out["probes"],
        )

    @classmethod
    def read(cls, out_dir: str | os.PathLike[str]) -> RunResult:
        """Load a result written by `write`."""
        import pandas as pd
        import pyarrow.parquet as pq

        out_dir = Path(out_dir)
        meta = json.loads((out_dir / SUMMARY_JSON).read_text(encoding="utf-8"))
        # Parquet stores NaN metrics (an undefined settling time) as null.
        row = pq.read_table(out_dir / "summary.parquet").to_pylist()[0]
        summary = {k: math.nan if v is None else v for k, v in row.items()}
        return cls(
            summary=summary,
            timeseries=pd.read_parquet(out_dir / "timeseries.parquet"),
            flows=pd.read_parquet(out_dir / "flows.parquet"),
            cwnd=pd.read_parquet(out_dir / "cwnd.parquet"),
            scenario_text=meta["scenario"],
            seed=meta["seed"],
            source=meta["source"],
            overrides=[tuple(pair) for pair in meta["overrides"]],
            groups=pd.read_parquet(out_dir / "groups.parquet"),
            ports=pd.read_parquet(out_dir / "ports.parquet"),
            port_timeseries=pd.read_parquet(out_dir / "port_timeseries.parquet"),
            fct=pd.read_parquet(out_dir / "fct.parquet"),
            # A folder written before the probe table existed reads as one without probes.
            probes=(
                pd.read_parquet(out_dir / "probes.parquet")
                if (out_dir / "probes.parquet").exists()
                else None
            ),
        )

    def provenance(self) -> dict[str, Any]:
        """The content of summary.json: version, seed, scenario, source, overrides, summary."""
        return _json_safe(
            {
                "aqmlab_version": _core.version(),
                "seed": self.seed,
                "scenario": self.scenario_text,
                "source": self.source,
                "overrides": [list(pair) for pair in self.overrides],
                "summary": self.summary_dict,
            }
        )

    def write(
        self, out_dir: str | os.PathLike[str], csv: bool = False, overwrite: bool = False
    ) -> Path:
        """Write the tables as Parquet (and CSV when `csv`) plus summary.json into `out_dir`.

        Files are built in a temporary sibling folder that replaces `out_dir` only once
        complete, so a failed or interrupted write leaves an earlier result intact. A folder
        that holds anything but an earlier aqmlab result is refused, and an earlier result is
        replaced only when `overwrite` (`OutputError` otherwise; see `aqmlab.engine.outdir`).
        """
        with staged(out_dir, "run", overwrite=overwrite) as tmp_dir:
            tables = [(self._tables[name], _dtypes(name, self._tables[name])) for name in TABLES]
            for file_format in ("parquet", "csv") if csv else ("parquet",):
                encoded = parquet.tables_bytes(tables, file_format)
                for name, data in zip(TABLES, encoded):
                    (tmp_dir / f"{name}.{file_format}").write_bytes(data)
            text = json.dumps(self.provenance(), sort_keys=True, indent=2, allow_nan=False)
            (tmp_dir / SUMMARY_JSON).write_text(text + "\n", encoding="utf-8")
        return Path(out_dir)

    def __repr__(self) -> str:
        aqm = self.summary_dict.get("aqm")
        return (
            f"RunResult(aqm={aqm!r}, seed={self.seed}, timeseries={self.rows('timeseries')} "
            f"rows, flows={self.rows('flows')} rows)"
        )
