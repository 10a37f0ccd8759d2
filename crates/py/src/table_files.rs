//! A table the core returned (column name -> list of values), or several together, as Parquet
//! or CSV bytes, written by `aqmlab-tables`. Each column takes the type pandas gives such a
//! list: text when its first value is a string, int64 when every value is an integer (uint64
//! when one is past int64's range), float64 otherwise and for a column without values, unless
//! `dtypes` names the column's type ("int64" or "float64").

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString};
use tables::encode::{encode_all, Format};
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

/// `columns` (name -> list) as a table, each column typed by `column`.
fn typed_table(columns: &Bound<'_, PyDict>, dtypes: &HashMap<String, String>) -> PyResult<Table> {
    let mut typed = Vec::with_capacity(columns.len());
    for (name, values) in columns.iter() {
        let name: String = name.extract()?;
        let values = values.downcast::<PyList>()?;
        let kind = column(&name, values, dtypes.get(&name).map(String::as_str))?;
        typed.push((name, kind));
    }
    Table::new(typed).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The file format named `format`.
fn format_of(format: &str) -> PyResult<Format> {
    match format {
        "parquet" => Ok(Format::Parquet),
        "csv" => Ok(Format::Csv),
        other => Err(PyValueError::new_err(format!(
            "format: `{other}` (parquet or csv)"
        ))),
    }
}

/// `tables` encoded as `format` without the interpreter's lock, as Python bytes.
fn encoded<'py>(
    py: Python<'py>,
    tables: Vec<Table>,
    format: Format,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let files = py
        .allow_threads(|| encode_all(&tables, format))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(files.iter().map(|bytes| PyBytes::new(py, bytes)).collect())
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
    let table = typed_table(columns, &dtypes)?;
    let mut files = encoded(py, vec![table], format_of(format)?)?;
    Ok(files.pop().expect("one table gives one file"))
}

/// Each of `tables` ((columns, dtypes) pairs, as `table_bytes` takes them) as `format` bytes,
/// in their order, encoded together (`tables::encode`): the same bytes as one
/// `table_bytes` call each, in less time on a machine with more than one core.
#[pyfunction]
#[pyo3(signature = (tables, format))]
fn tables_bytes<'py>(
    py: Python<'py>,
    tables: Vec<(Bound<'py, PyDict>, HashMap<String, String>)>,
    format: &str,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let typed = tables
        .iter()
        .map(|(columns, dtypes)| typed_table(columns, dtypes))
        .collect::<PyResult<Vec<_>>>()?;
    encoded(py, typed, format_of(format)?)
}

/// Add the table writers to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(tables_bytes, m)?)?;
    Ok(())
}
