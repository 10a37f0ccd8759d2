//! A table the core returned (column name -> list of values) as Parquet or CSV bytes, written
//! by `aqmlab-tables`. Each column takes the type pandas gives such a list: text when its
//! first value is a string, int64 when every value is an integer (uint64 when one is past
//! int64's range), float64 otherwise and for a column without values, unless `dtypes` names
//! the column's type ("int64" or "float64").

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString};
use tables::{Column, Table};

/// `values` as float64, None as NaN (as numpy converts them).
fn floats(values: &Bound<'_, PyList>) -> PyResult<Vec<f64>> {
    values
        .iter()
        .map(|v| {
            if v.is_none() {
                Ok(f64::NAN)
            } else {
                v.extract::<f64>()
            }
        })
        .collect()
}

/// `values` as the column pandas would make of them, or as `dtype`.
fn column(name: &str, values: &Bound<'_, PyList>, dtype: Option<&str>) -> PyResult<Column> {
    match dtype {
        Some("int64") => return Ok(Column::Int64(values.extract()?)),
        Some("float64") => return Ok(Column::Float64(floats(values)?)),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "dtype of column `{name}`: `{other}` (int64 or float64)"
            )))
        }
        None => {}
    }
    let Ok(first) = values.get_item(0) else {
        return Ok(Column::Float64(Vec::new()));
    };
    if first.is_instance_of::<PyString>() {
        let texts = values
            .iter()
            .map(|v| Ok(v.str()?.to_str()?.to_owned()))
            .collect::<PyResult<_>>()?;
        return Ok(Column::Text(texts));
    }
    let is_int =
        |v: &Bound<'_, PyAny>| v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>();
    if is_int(&first) && values.iter().all(|v| is_int(&v)) {
        if let Ok(ints) = values.extract::<Vec<i64>>() {
            return Ok(Column::Int64(ints));
        }
        return Ok(Column::UInt64(values.extract()?));
    }
    Ok(Column::Float64(floats(values)?))
}

/// `columns` (name -> list) as Parquet (`format` "parquet") or CSV ("csv") bytes.
#[pyfunction]
#[pyo3(signature = (columns, dtypes, format))]
fn table_bytes<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
    dtypes: HashMap<String, String>,
    format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut typed = Vec::with_capacity(columns.len());
    for (name, values) in columns.iter() {
        let name: String = name.extract()?;
        let values = values.downcast::<PyList>()?;
        let kind = column(&name, values, dtypes.get(&name).map(String::as_str))?;
        typed.push((name, kind));
    }
    let table = Table::new(typed).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let bytes = match format {
        "parquet" => py
            .allow_threads(|| tables::parquet_file::parquet_bytes(&table))
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
        "csv" => py
            .allow_threads(|| tables::csv_file::csv_text(&table))
            .into_bytes(),
        other => {
            return Err(PyValueError::new_err(format!(
                "format: `{other}` (parquet or csv)"
            )))
        }
    };
    Ok(PyBytes::new(py, &bytes))
}

/// Add the table writer to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table_bytes, m)?)?;
    Ok(())
}
