//! aqmlab's result tables as files: Parquet (through Arrow) and CSV, written by the core, so
//! that writing a run's tables needs neither numpy nor pyarrow in the Python process.
//!
//! A table is named columns of one type each: the types a pandas DataFrame gives the values
//! the core returns (int64, uint64 past int64's range, float64, text), so the files read back
//! as the DataFrames they stand for. NaN in a float column is a missing value (null in
//! Parquet, an empty field in CSV), as pandas writes it.

pub mod csv_file;
pub mod encode;
pub mod parquet_file;
pub mod py_repr;

use std::fmt;

/// The values of one column.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Signed integers (Arrow int64).
    Int64(Vec<i64>),
    /// Unsigned integers, for a column with a value past i64::MAX (Arrow uint64).
    UInt64(Vec<u64>),
    /// Floating-point values, NaN for a missing one (Arrow float64).
    Float64(Vec<f64>),
    /// Text (Arrow large_string, as pyarrow gives a pandas text column).
    Text(Vec<String>),
}

impl Column {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Column::Int64(v) => v.len(),
            Column::UInt64(v) => v.len(),
            Column::Float64(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }

    /// Whether the column has no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Named columns of equal length, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    columns: Vec<(String, Column)>,
}

/// Why a table could not be built or written.
#[derive(Clone, Debug, PartialEq)]
pub struct TableError(pub String);

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TableError {}

impl Table {
    /// A table of `columns`; an error when two columns differ in length or share a name.
    pub fn new(columns: Vec<(String, Column)>) -> Result<Self, TableError> {
        if let Some((first, column)) = columns.first() {
            let rows = column.len();
            for (name, other) in &columns {
                if other.len() != rows {
                    return Err(TableError(format!(
                        "column `{name}` has {} values, column `{first}` {rows}",
                        other.len()
                    )));
                }
            }
        }
        for (i, (name, _)) in columns.iter().enumerate() {
            if columns[..i].iter().any(|(n, _)| n == name) {
                return Err(TableError(format!("column `{name}` appears twice")));
            }
        }
        Ok(Table { columns })
    }

    /// The columns, in file order.
    pub fn columns(&self) -> &[(String, Column)] {
        &self.columns
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_must_match_in_length_and_differ_in_name() {
        let ok = Table::new(vec![
            ("a".into(), Column::Int64(vec![1, 2])),
            ("b".into(), Column::Float64(vec![0.5, f64::NAN])),
        ])
        .unwrap();
        assert_eq!(ok.rows(), 2);
        let short = Table::new(vec![
            ("a".into(), Column::Int64(vec![1, 2])),
            ("b".into(), Column::Text(vec!["x".into()])),
        ]);
        assert_eq!(
            short.unwrap_err().to_string(),
            "column `b` has 1 values, column `a` 2"
        );
        let twice = Table::new(vec![
            ("a".into(), Column::Int64(vec![])),
            ("a".into(), Column::UInt64(vec![])),
        ]);
        assert!(twice.unwrap_err().to_string().contains("twice"));
        assert_eq!(Table::default().rows(), 0);
    }
}
