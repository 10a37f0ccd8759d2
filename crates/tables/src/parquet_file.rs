//! A table as one Parquet file: Arrow arrays of the columns' types (nullable, as pyarrow makes
//! a DataFrame's), the Arrow schema kept in
//! the file (so pyarrow reads a text column back as large_string, the type pandas gave it), one
//! row group, zstd level 3, dictionary encoding, statistics, version-1 data pages (what every
//! reader handles), and no metadata that varies between runs: the same table gives the same
//! bytes.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Float64Array, Int64Array, LargeStringArray, RecordBatch, RecordBatchOptions,
    UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};

use crate::{Column, Table, TableError};

/// zstd level of the column chunks (as pyarrow's `compression_level=3`).
const ZSTD_LEVEL: i32 = 3;

/// `column` as an Arrow array and its field; NaN floats are nulls.
fn arrow_column(name: &str, column: &Column) -> (Field, ArrayRef) {
    let (kind, array): (DataType, ArrayRef) = match column {
        Column::Int64(v) => (DataType::Int64, Arc::new(Int64Array::from(v.clone()))),
        Column::UInt64(v) => (DataType::UInt64, Arc::new(UInt64Array::from(v.clone()))),
        Column::Float64(v) => (
            DataType::Float64,
            Arc::new(Float64Array::from_iter(
                v.iter().map(|&x| (!x.is_nan()).then_some(x)),
            )),
        ),
        Column::Text(v) => (
            DataType::LargeUtf8,
            Arc::new(LargeStringArray::from_iter_values(v)),
        ),
    };
    // Every field may hold nulls, as in the schema pyarrow gives a DataFrame.
    (Field::new(name, kind, true), array)
}

/// The Parquet bytes of `table`.
pub fn parquet_bytes(table: &Table) -> Result<Vec<u8>, TableError> {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = table
        .columns()
        .iter()
        .map(|(name, column)| arrow_column(name, column))
        .unzip();
    let schema = Arc::new(Schema::new(fields));
    let options = RecordBatchOptions::new().with_row_count(Some(table.rows()));
    let batch = RecordBatch::try_new_with_options(schema.clone(), arrays, &options)
        .map_err(|e| TableError(format!("table: {e}")))?;
    let level = ZstdLevel::try_new(ZSTD_LEVEL).expect("zstd level 3 exists");
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_dictionary_enabled(true)
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .build();
    let mut bytes = Vec::new();
    let parquet_err = |e: parquet::errors::ParquetError| TableError(format!("Parquet: {e}"));
    let mut writer =
        ArrowWriter::try_new(&mut bytes, schema, Some(properties)).map_err(parquet_err)?;
    writer.write(&batch).map_err(parquet_err)?;
    writer.close().map_err(parquet_err)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    fn sample() -> Table {
        Table::new(vec![
            ("i".into(), Column::Int64(vec![1, -2, 3])),
            ("u".into(), Column::UInt64(vec![u64::MAX, 0, 1])),
            ("x".into(), Column::Float64(vec![0.5, f64::NAN, 2.0])),
            (
                "s".into(),
                Column::Text(vec!["a".into(), "b".into(), "".into()]),
            ),
        ])
        .unwrap()
    }

    #[test]
    fn same_table_same_bytes_and_rows_read_back() {
        let bytes = parquet_bytes(&sample()).unwrap();
        assert_eq!(bytes, parquet_bytes(&sample()).unwrap());
        assert_eq!(&bytes[..4], b"PAR1");
        let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.file_metadata().num_rows(), 3);
        assert_eq!(meta.num_row_groups(), 1);
        assert_eq!(meta.file_metadata().schema_descr().num_columns(), 4);
    }

    #[test]
    fn tables_without_rows_or_columns_are_files_too() {
        let empty_rows = Table::new(vec![("a".into(), Column::Int64(vec![]))]).unwrap();
        assert_eq!(&parquet_bytes(&empty_rows).unwrap()[..4], b"PAR1");
        assert_eq!(&parquet_bytes(&Table::default()).unwrap()[..4], b"PAR1");
    }
}
