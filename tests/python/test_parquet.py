"""A table written from its columns (`aqmlab run`, sweep workers) gives the bytes pandas gives
for the same columns: the types pandas infers, NaN as null, no metadata."""

import math

import pandas as pd
import pyarrow.parquet as pq
import pytest

from aqmlab.engine.parquet import arrow_table, parquet_bytes

TABLES = {
    "floats with NaN": {"t_s": [0.0, 0.5, 1.0], "q": [1.5, math.nan, 3.25]},
    "ints, text, floats": {"flow": [0, 1, 2], "name": ["a", "bb", "ccc"], "x": [0.1, 0.2, 0.3]},
    "no rows": {"t_s": [], "flow": [], "cwnd_pkts": []},
    "an integer past int64": {"seed": [2**64 - 1], "aqm": ["red"], "settle_s": [math.nan]},
    "integers and floats in one column": {"v": [1, 2.5, 3]},
    "no columns": {},
    "text with non-ASCII": {"label": ["θ = 0.1", "RED", ""]},
}


@pytest.mark.parametrize("name", TABLES)
def test_columns_give_the_bytes_of_the_dataframe(name):
    columns = TABLES[name]
    assert parquet_bytes(columns) == parquet_bytes(pd.DataFrame(columns))


def test_dtypes_fix_the_schema_of_an_empty_table():
    columns = {"group": [], "fct_mean_s": []}
    dtypes = {"group": "int64", "fct_mean_s": "float64"}
    frame = pd.DataFrame({k: pd.Series(v, dtype=dtypes[k]) for k, v in columns.items()})
    assert parquet_bytes(columns, dtypes) == parquet_bytes(frame)
    assert [str(t) for t in arrow_table(columns, dtypes).schema.types] == ["int64", "double"]


def test_nan_is_null_and_values_survive(tmp_path):
    path = tmp_path / "t.parquet"
    path.write_bytes(parquet_bytes(TABLES["floats with NaN"]))
    assert pq.read_table(path).to_pydict() == {"t_s": [0.0, 0.5, 1.0], "q": [1.5, None, 3.25]}
