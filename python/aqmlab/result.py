"""The outcome of one run as DataFrames, and its deterministic on-disk form."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import tomllib

from . import _core
from .outdir import staged

TABLES = ("summary", "timeseries", "flows", "groups", "cwnd", "ports", "port_timeseries", "fct")
"""The tables of a run; each is written as `<name>.parquet` (and `<name>.csv` on request)."""

SUMMARY_JSON = "summary.json"


def _json_safe(value: Any) -> Any:
    """Replace non-finite floats by None, recursively, so the JSON is strict."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def parquet_bytes(df: pd.DataFrame) -> bytes:
    """A DataFrame as Parquet with fixed options and no index or library-version metadata, so
    the same table always gives the same bytes."""
    table = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)
    sink = pa.BufferOutputStream()
    pq.write_table(
        table,
        sink,
        compression="zstd",
        compression_level=3,
        use_dictionary=True,
        write_statistics=True,
        version="2.6",
        data_page_version="1.0",
    )
    return sink.getvalue().to_pybytes()


def _write_parquet(df: pd.DataFrame, path: Path) -> None:
    """Write `parquet_bytes(df)` to `path`."""
    with open(path, "wb") as f:
        f.write(parquet_bytes(df))


def _named_groups(table: pd.DataFrame, scenario_text: str) -> pd.DataFrame:
    """A table with a `group` index column (the per-group table, the completion times) with
    each group's name (from the resolved scenario) after it: `all` for a scenario with one
    `[traffic.schedule]`."""
    traffic = tomllib.loads(scenario_text).get("traffic", {})
    names = [g["name"] for g in traffic.get("groups", [])] or ["all"]
    table.insert(1, "name", [names[int(g)] for g in table["group"]] if len(table) else [])
    return table


def _typed_fct(columns: Mapping[str, list]) -> pd.DataFrame:
    """The completion-time table with its column types kept when it has no rows (no finite
    flows), so every run writes the same schema."""
    ints = ("group", "size_min_bytes", "flows", "completed")
    return pd.DataFrame(
        {k: pd.Series(v, dtype="int64" if k in ints else "float64") for k, v in columns.items()}
    )


class RunResult:
    """Summary (one row), time series, per-port, per-flow and per-group tables, completion
    times and cwnd traces of one run, with the provenance needed to repeat it."""

    def __init__(
        self,
        summary: Mapping[str, Any],
        timeseries: pd.DataFrame,
        flows: pd.DataFrame,
        cwnd: pd.DataFrame,
        scenario_text: str,
        seed: int,
        source: str | None = None,
        overrides: Sequence[tuple[str, str]] = (),
        groups: pd.DataFrame | None = None,
        ports: pd.DataFrame | None = None,
        port_timeseries: pd.DataFrame | None = None,
        fct: pd.DataFrame | None = None,
    ) -> None:
        self.summary_dict = dict(summary)
        self.summary = pd.DataFrame([self.summary_dict])
        self.timeseries = timeseries
        self.flows = flows
        self.groups = groups if groups is not None else pd.DataFrame()
        self.ports = ports if ports is not None else pd.DataFrame()
        self.port_timeseries = port_timeseries if port_timeseries is not None else pd.DataFrame()
        self.fct = fct if fct is not None else pd.DataFrame()
        self.cwnd = cwnd
        self.scenario_text = scenario_text
        self.seed = int(seed)
        self.source = source
        self.overrides = [(str(k), str(v)) for k, v in overrides]

    @classmethod
    def from_core(
        cls,
        out: Mapping[str, Any],
        source: str | None = None,
        overrides: Sequence[tuple[str, str]] = (),
    ) -> RunResult:
        """Wrap the dict returned by `_core.run_scenario`."""
        return cls(
            summary=out["summary"],
            timeseries=pd.DataFrame(out["timeseries"]),
            flows=pd.DataFrame(out["flows"]),
            cwnd=pd.DataFrame(out["cwnd"]),
            scenario_text=out["scenario"],
            seed=out["seed"],
            source=source,
            overrides=overrides,
            groups=_named_groups(pd.DataFrame(out["groups"]), out["scenario"]),
            ports=pd.DataFrame(out["ports"]),
            port_timeseries=pd.DataFrame(out["port_timeseries"]),
            fct=_named_groups(_typed_fct(out["fct"]), out["scenario"]),
        )

    @classmethod
    def read(cls, out_dir: str | os.PathLike[str]) -> RunResult:
        """Load a result written by `write`."""
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
        replaced only when `overwrite` (`OutputError` otherwise; see `aqmlab.outdir`).
        """
        with staged(out_dir, "run", overwrite=overwrite) as tmp_dir:
            for name in TABLES:
                df = getattr(self, name)
                _write_parquet(df, tmp_dir / f"{name}.parquet")
                if csv:
                    df.to_csv(tmp_dir / f"{name}.csv", index=False, lineterminator="\n")
            text = json.dumps(self.provenance(), sort_keys=True, indent=2, allow_nan=False)
            (tmp_dir / SUMMARY_JSON).write_text(text + "\n", encoding="utf-8")
        return Path(out_dir)

    def __repr__(self) -> str:
        aqm = self.summary_dict.get("aqm")
        return (
            f"RunResult(aqm={aqm!r}, seed={self.seed}, timeseries={len(self.timeseries)} rows, "
            f"flows={len(self.flows)} rows)"
        )
