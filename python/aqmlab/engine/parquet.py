"""Tables as deterministic Parquet and CSV bytes.

A table given as columns (what the core returns: `aqmlab run`, the sweep workers) is written by
the core itself (`aqmlab._core.table_bytes`, crate `aqmlab-tables`; a run's tables together
through `_core.tables_bytes`, on several threads), so writing a run's files imports neither
numpy nor pyarrow nor pandas. Each column takes the type pandas would give it, so the files read
back (pandas, pyarrow, polars, DuckDB) as the DataFrame of the same columns would;
`tests/python/test_parquet.py` checks that. A DataFrame (reports, sweep tables) is written by
pyarrow with the same options. `write_table` writes a DataFrame into a result folder as Parquet
with a CSV copy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import _core
from .outdir import write_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any, Union

    import pandas as pd

    Columns = Mapping[str, Sequence[Any]]
    """A table as the core returns it: column name -> values (floats, integers or strings)."""

    Table = Union[pd.DataFrame, Columns]
    """A DataFrame, or a table's columns."""


def _lists(columns: Columns) -> dict[str, list[Any]]:
    """The columns as the core takes them: each a list, under a text name."""
    return {str(k): v if isinstance(v, list) else list(v) for k, v in columns.items()}


def _core_bytes(columns: Columns, dtypes: Mapping[str, str] | None, file_format: str) -> bytes:
    """Columns as `file_format` ("parquet" or "csv") bytes from the core; `dtypes` fixes the
    type of some columns ("int64" or "float64"), so a table without rows keeps its schema."""
    return _core.table_bytes(_lists(columns), dict(dtypes or {}), file_format)


def tables_bytes(
    tables: Sequence[tuple[Table, Mapping[str, str] | None]], file_format: str
) -> list[bytes]:
    """Each (table, dtypes) of `tables` as `file_format` ("parquet" or "csv") bytes, in order:
    the same bytes as `parquet_bytes` or `csv_bytes` of each, but the tables given as columns
    are encoded by the core in one call, on as many threads as the machine offers."""
    one = {"parquet": parquet_bytes, "csv": csv_bytes}[file_format]
    columns = [
        (_lists(table), dict(dtypes or {}))
        for table, dtypes in tables
        if isinstance(table, Mapping)
    ]
    encoded = iter(_core.tables_bytes(columns, file_format))
    return [
        next(encoded) if isinstance(table, Mapping) else one(table, dtypes)
        for table, dtypes in tables
    ]


def parquet_bytes(table: Table, dtypes: Mapping[str, str] | None = None) -> bytes:
    """A table as Parquet with fixed options and no metadata that varies, so the same table
    always gives the same bytes: zstd level 3, dictionary encoding, statistics, version-1 data
    pages. `dtypes` applies to a table given as columns."""
    if isinstance(table, Mapping):
        return _core_bytes(table, dtypes, "parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    sink = pa.BufferOutputStream()
    pq.write_table(
        arrow.replace_schema_metadata(None),
        sink,
        compression="zstd",
        compression_level=3,
        use_dictionary=True,
        write_statistics=True,
        version="2.6",
        data_page_version="1.0",
    )
    return sink.getvalue().to_pybytes()


def csv_bytes(table: Table, dtypes: Mapping[str, str] | None = None) -> bytes:
    """A table as CSV, as pandas' `to_csv(index=False, lineterminator="\\n")` writes it."""
    if isinstance(table, Mapping):
        return _core_bytes(table, dtypes, "csv")
    return table.to_csv(index=False, lineterminator="\n").encode()


def write_parquet(table: Table, path: Path, dtypes: Mapping[str, str] | None = None) -> None:
    """Write `parquet_bytes(table, dtypes)` to `path`."""
    with open(path, "wb") as f:
        f.write(parquet_bytes(table, dtypes))


def write_csv(table: Table, path: Path, dtypes: Mapping[str, str] | None = None) -> None:
    """Write `csv_bytes(table, dtypes)` to `path`."""
    with open(path, "wb") as f:
        f.write(csv_bytes(table, dtypes))


def write_table(df: pd.DataFrame, directory: str | os.PathLike[str], stem: str) -> list[Path]:
    """Write `df` as `<stem>.parquet` and `<stem>.csv` in `directory`, a folder of an aqmlab
    result (each file listed and written atomically: `outdir.write_file`)."""
    directory = Path(directory)
    return [
        write_file(directory / f"{stem}.parquet", lambda tmp: write_parquet(df, tmp)),
        write_file(directory / f"{stem}.csv", lambda tmp: write_csv(df, tmp)),
    ]
