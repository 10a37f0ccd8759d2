"""A table written from its columns by the core (`aqmlab run`, sweep workers) reads back, in
pandas, pyarrow, polars and DuckDB, as the same columns written from a pandas DataFrame by
pyarrow (how every file was written before the core wrote them): the types pandas infers, NaN
as null; and its CSV is byte for byte pandas' `to_csv`."""

import io
import math

import duckdb
import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

from aqmlab import _core
from aqmlab.engine.parquet import csv_bytes, parquet_bytes, tables_bytes

TABLES = {
    "floats with NaN": {"t_s": [0.0, 0.5, 1.0], "q": [1.5, math.nan, 3.25]},
    "ints, text, floats": {"flow": [0, 1, 2], "name": ["a", "bb", "ccc"], "x": [0.1, 0.2, 0.3]},
    "no rows": {"t_s": [], "flow": [], "cwnd_pkts": []},
    "an integer past int64": {"seed": [2**64 - 1], "aqm": ["red"], "settle_s": [math.nan]},
    "integers and floats in one column": {"v": [1, 2.5, 3]},
    "no columns": {},
    "text with non-ASCII": {"label": ["θ = 0.1", "RED", ""]},
    "text needing quotes": {"name": ["a,b", 'say "x"', "two\nlines"], "n": [1, -2, 3]},
    "floats Python prints in exponent form": {
        "x": [1e-05, 1e16, 5e-324, -0.0, math.inf, -math.inf, 1e15, 0.1 + 0.2]
    },
    "a lone empty field": {"a": [math.nan, 1.0]},
}


def _frame(columns, dtypes=None):
    dtypes = dtypes or {}
    return pd.DataFrame(
        {k: pd.Series(v, dtype=dtypes[k]) if k in dtypes else v for k, v in columns.items()}
    )


def _pair(name):
    columns = TABLES[name]
    return parquet_bytes(columns), parquet_bytes(_frame(columns))


@pytest.mark.parametrize("name", TABLES)
def test_pandas_and_pyarrow_read_what_the_dataframe_path_wrote(name):
    ours, theirs = _pair(name)
    assert ours[:4] == b"PAR1" and ours != theirs  # two writers, one table
    a, b = pq.read_table(io.BytesIO(ours)), pq.read_table(io.BytesIO(theirs))
    assert a.schema.remove_metadata() == b.schema.remove_metadata()
    assert a.to_pydict().keys() == b.to_pydict().keys()
    for key in a.column_names:
        left, right = a[key].to_pylist(), b[key].to_pylist()
        assert [repr(v) for v in left] == [repr(v) for v in right], key
    pd.testing.assert_frame_equal(
        pd.read_parquet(io.BytesIO(ours)), pd.read_parquet(io.BytesIO(theirs))
    )


@pytest.mark.parametrize("name", [n for n in TABLES if n != "no columns"])
def test_polars_and_duckdb_read_what_the_dataframe_path_wrote(name, tmp_path):
    ours, theirs = _pair(name)
    (tmp_path / "ours.parquet").write_bytes(ours)
    (tmp_path / "theirs.parquet").write_bytes(theirs)
    left, right = pl.read_parquet(io.BytesIO(ours)), pl.read_parquet(io.BytesIO(theirs))
    assert left.schema == right.schema
    assert left.equals(right, null_equal=True)
    con = duckdb.connect()
    rows = [
        con.execute(f"SELECT * FROM read_parquet('{tmp_path / f}')").fetchall()
        for f in ("ours.parquet", "theirs.parquet")
    ]
    types = [
        con.execute(f"DESCRIBE SELECT * FROM read_parquet('{tmp_path / f}')").fetchall()
        for f in ("ours.parquet", "theirs.parquet")
    ]
    assert repr(rows[0]) == repr(rows[1]) and types[0] == types[1]


@pytest.mark.parametrize("name", TABLES)
def test_csv_is_what_pandas_writes(name):
    columns = TABLES[name]
    want = _frame(columns).to_csv(index=False, lineterminator="\n").encode()
    assert csv_bytes(columns) == want


def test_dtypes_fix_the_schema_of_an_empty_table():
    columns = {"group": [], "fct_mean_s": []}
    dtypes = {"group": "int64", "fct_mean_s": "float64"}
    table = pq.read_table(io.BytesIO(parquet_bytes(columns, dtypes)))
    assert [str(t) for t in table.schema.types] == ["int64", "double"]
    assert csv_bytes(columns, dtypes) == _frame(columns, dtypes).to_csv(index=False).encode()


def test_same_columns_same_bytes():
    columns = TABLES["ints, text, floats"]
    assert parquet_bytes(columns) == parquet_bytes({k: list(v) for k, v in columns.items()})


def test_nan_is_null_and_values_survive():
    data = parquet_bytes(TABLES["floats with NaN"])
    assert pq.read_table(io.BytesIO(data)).to_pydict() == {
        "t_s": [0.0, 0.5, 1.0],
        "q": [1.5, None, 3.25],
    }


@pytest.mark.parametrize(
    ("columns", "dtypes", "file_format", "message"),
    [
        ({"a": [1], "b": [1, 2]}, {}, "parquet", "column `b` has 2 values, column `a` 1"),
        ({"a": [1]}, {"a": "int8"}, "parquet", "dtype of column `a`: `int8` (int64 or float64)"),
        ({"a": [1]}, {}, "xlsx", "format: `xlsx` (parquet or csv)"),
    ],
)
def test_bad_tables_get_one_line_errors(columns, dtypes, file_format, message):
    pattern = message.replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=pattern):
        _core.table_bytes(columns, dtypes, file_format)
    with pytest.raises(ValueError, match=pattern):
        _core.tables_bytes([({"x": [1.0]}, {}), (columns, dtypes)], file_format)


@pytest.mark.parametrize("file_format", ["parquet", "csv"])
def test_tables_together_give_the_bytes_of_each_alone(file_format):
    one = {"parquet": parquet_bytes, "csv": csv_bytes}[file_format]
    rows = {"t_s": [i / 8 for i in range(3000)], "flow": [i % 7 for i in range(3000)]}
    dtypes = {"t_s": "float64", "flow": "int64"}
    tables = [(columns, None) for columns in TABLES.values()]
    tables += [(rows, dtypes), (_frame(TABLES["ints, text, floats"]), None), ({}, dtypes)]
    together = tables_bytes(tables, file_format)
    assert together == [one(table, dtypes) for table, dtypes in tables]
    assert tables_bytes([], file_format) == []
