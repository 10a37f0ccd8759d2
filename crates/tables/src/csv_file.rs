//! A table as CSV, byte for byte as pandas' `DataFrame.to_csv(index=False,
//! lineterminator="\n")` writes the same DataFrame: a header of the column names, integers in
//! decimal, floats as Python's `repr`, a missing float as an empty field, and a field quoted
//! (its quotes doubled) when it holds a comma, a quote or a line break, as Python's csv module
//! does with QUOTE_MINIMAL (which also quotes a row's only field when it is empty).

use crate::py_repr::float_repr;
use crate::{Column, Table};

/// `field` as one CSV field.
fn push_field(out: &mut String, field: &str, only_field: bool) {
    if field.contains([',', '"', '\n', '\r']) || (only_field && field.is_empty()) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// Row `row` of `column` as text.
fn cell(column: &Column, row: usize) -> String {
    match column {
        Column::Int64(v) => v[row].to_string(),
        Column::UInt64(v) => v[row].to_string(),
        Column::Float64(v) if v[row].is_nan() => String::new(),
        Column::Float64(v) => float_repr(v[row]),
        Column::Text(v) => v[row].clone(),
    }
}

/// The CSV text of `table`.
pub fn csv_text(table: &Table) -> String {
    let columns = table.columns();
    let only_field = columns.len() == 1;
    let mut out = String::new();
    for (i, (name, _)) in columns.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_field(&mut out, name, only_field);
    }
    out.push('\n');
    for row in 0..table.rows() {
        for (i, (_, column)) in columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_field(&mut out, &cell(column, row), only_field);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_pandas_writes_it() {
        let table = Table::new(vec![
            ("x".into(), Column::Float64(vec![0.1, f64::NAN, 1e16])),
            (
                "s".into(),
                Column::Text(vec!["a,b".into(), "q\"x".into(), String::new()]),
            ),
            ("i".into(), Column::Int64(vec![0, -1, 2])),
            ("u".into(), Column::UInt64(vec![9223372036854775813, 1, 2])),
        ])
        .unwrap();
        assert_eq!(
            csv_text(&table),
            "x,s,i,u\n0.1,\"a,b\",0,9223372036854775813\n,\"q\"\"x\",-1,1\n1e+16,,2,2\n"
        );
    }

    #[test]
    fn a_lone_empty_field_is_quoted() {
        let table = Table::new(vec![("a".into(), Column::Float64(vec![f64::NAN, 1.0]))]).unwrap();
        assert_eq!(csv_text(&table), "a\n\"\"\n1.0\n");
        assert_eq!(csv_text(&Table::default()), "\n");
    }
}
