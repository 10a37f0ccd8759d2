"""Tables as deterministic Parquet bytes, from a pandas DataFrame or straight from the columns the
core returns, so that `aqmlab run` and the sweep workers write without importing pandas.

Both paths give the same bytes for the same table: a column of the core takes the Arrow type that
pandas gives it when a DataFrame is built from it (what the files held before the columns path
existed; `tests/python/test_output_golden.py` holds their digests). `write_table` writes a
DataFrame into a result folder as Parquet with a CSV copy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .outdir import write_file

if TYPE_CHECKING:
    import pandas as pd

Columns = Mapping[str, Sequence[Any]]
"""A table as the core returns it: column name -> values (floats, integers or strings)."""

Table = Union["pd.DataFrame", Columns]
"""A DataFrame, or a table's columns."""

INT64_MAX = 2**63 - 1

_TYPES = {"int64": pa.int64(), "float64": pa.float64()}
_NUMPY = {pa.int64(): np.int64, pa.uint64(): np.uint64, pa.float64(): np.float64}


def _arrow_type(values: Sequence[Any], dtype: str | None) -> pa.DataType:
    """The type pandas infers for a column of these values: int64 (uint64 past its range),
    float64 (also for a column without values), large_string for text; or `dtype`."""
    if dtype is not None:
        return _TYPES[dtype]
    if not values:
        return pa.float64()
    first = values[0]
    if isinstance(first, str):
        return pa.large_string()
    if isinstance(first, int) and not isinstance(first, bool):
        if all(isinstance(v, int) for v in values):
            return pa.int64() if max(values) <= INT64_MAX else pa.uint64()
        return pa.float64()
    return pa.float64()


def _array(values: Sequence[Any], kind: pa.DataType) -> pa.Array:
    """`values` as an Arrow array of type `kind`, NaN as null (as from pandas), assembled from
    buffers: `pa.array` would import pandas to find out what it was given (0.25 s)."""
    n = len(values)
    if kind == pa.large_string():
        data = [str(v).encode() for v in values]
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(b) for b in data], out=offsets[1:])
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
        return pa.Array.from_buffers(kind, n, buffers)
    numbers = np.asarray(values, dtype=_NUMPY[kind])
    validity = None
    if kind == pa.float64():
        missing = np.isnan(numbers)
        if missing.any():
            validity = pa.py_buffer(np.packbits(~missing, bitorder="little"))
    return pa.Array.from_buffers(kind, n, [validity, pa.py_buffer(numbers)])


def arrow_table(columns: Columns, dtypes: Mapping[str, str] | None = None) -> pa.Table:
    """The columns as an Arrow table; `dtypes` fixes the type of some columns ("int64" or
    "float64"), so a table without rows keeps its schema. NaN becomes null, as from pandas."""
    dtypes = dtypes or {}
    arrays = [_array(v, _arrow_type(v, dtypes.get(k))) for k, v in columns.items()]
    return pa.Table.from_arrays(arrays, names=list(columns))


def parquet_bytes(table: Table, dtypes: Mapping[str, str] | None = None) -> bytes:
    """A table as Parquet with fixed options and no index or library-version metadata, so the
    same table always gives the same bytes. `dtypes` applies to a table given as columns."""
    if isinstance(table, Mapping):
        arrow = arrow_table(table, dtypes)
    else:
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


def write_parquet(table: Table, path: Path, dtypes: Mapping[str, str] | None = None) -> None:
    """Write `parquet_bytes(table, dtypes)` to `path`."""
    with open(path, "wb") as f:
        f.write(parquet_bytes(table, dtypes))


def write_table(df: pd.DataFrame, directory: str | os.PathLike[str], stem: str) -> list[Path]:
    """Write `df` as `<stem>.parquet` and `<stem>.csv` in `directory`, a folder of an aqmlab
    result (each file listed and written atomically: `outdir.write_file`)."""
    directory = Path(directory)
    return [
        write_file(directory / f"{stem}.parquet", lambda tmp: write_parquet(df, tmp)),
        write_file(
            directory / f"{stem}.csv",
            lambda tmp: df.to_csv(tmp, index=False, lineterminator="\n"),
        ),
    ]
