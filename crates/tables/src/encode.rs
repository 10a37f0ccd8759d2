//! A run's tables encoded together: each table's file is independent of the others, so they
//! are encoded on as many threads as the machine offers (at most one per table), the costliest
//! first, and each table gives the same bytes as when encoded alone. A run writes nine tables,
//! most of them a row or a few hundred with tens of columns, where the Parquet writer's fixed
//! work per column (its encoders, statistics and a zstd context for each) outweighs the values.
//! On the two cores of BENCHMARKS.md's machine the nine tables of scenario 1 (100 flows, 20 s)
//! took 0.73–0.79 times as long as encoded one after the other, those of scenario 2 0.63–0.70
//! times (medians of 61 alternating pairs, four series; docs/architecture.md, "Start-up and
//! output").

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{csv_file, parquet_file, Table, TableError};

/// The file format of the encoded tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `parquet_file::parquet_bytes`.
    Parquet,
    /// `csv_file::csv_text`.
    Csv,
}

/// `table` in `format`.
fn encode(table: &Table, format: Format) -> Result<Vec<u8>, TableError> {
    match format {
        Format::Parquet => parquet_file::parquet_bytes(table),
        Format::Csv => Ok(csv_file::csv_text(table).into_bytes()),
    }
}

/// What a Parquet writer's fixed work for one column (its encoders, statistics and zstd
/// context) costs, in values of the column: about 60 µs against about 0.05 µs a value, as a
/// run's tables took on the machine of BENCHMARKS.md.
const COLUMN_COST_VALUES: usize = 1000;

/// The work of encoding `table`, in values: each column's fixed work and its values.
fn cost(table: &Table) -> usize {
    table.columns().len() * (COLUMN_COST_VALUES + table.rows())
}

/// Each of `tables` in `format`, in their order; the first error in that order if any fails.
pub fn encode_all(tables: &[Table], format: Format) -> Result<Vec<Vec<u8>>, TableError> {
    let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    encode_on(tables, format, cores)
}

/// [`encode_all`] on at most `threads` threads.
fn encode_on(tables: &[Table], format: Format, threads: usize) -> Result<Vec<Vec<u8>>, TableError> {
    let threads = threads.min(tables.len());
    if threads <= 1 {
        return tables.iter().map(|t| encode(t, format)).collect();
    }
    // The costliest first, so that no thread is left with a long one once the others are
    // done. Only the order of the work depends on this estimate, never the bytes.
    let mut order: Vec<usize> = (0..tables.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&tables[i])));
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Result<Vec<u8>, TableError>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push((i, encode(&tables[i], format)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("no encoder panics"))
            .collect()
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, file)| file).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Column;

    fn tables() -> Vec<Table> {
        (0..7)
            .map(|k| {
                let rows = [0, 1, 3, 2000, 1, 50, 0][k];
                Table::new(vec![
                    (
                        "x".into(),
                        Column::Float64((0..rows).map(|i| (i * k) as f64 / 7.0).collect()),
                    ),
                    ("i".into(), Column::Int64((0..rows as i64).collect())),
                    (
                        "s".into(),
                        Column::Text((0..rows).map(|i| format!("f{}", i % 3)).collect()),
                    ),
                ])
                .unwrap()
            })
            .collect()
    }

    #[test]
    fn together_as_alone_and_in_order_on_any_number_of_threads() {
        let tables = tables();
        for format in [Format::Parquet, Format::Csv] {
            let alone: Vec<Vec<u8>> = tables.iter().map(|t| encode(t, format).unwrap()).collect();
            assert_eq!(encode_all(&tables, format).unwrap(), alone);
            for threads in [0, 1, 2, 3, 7, 16] {
                assert_eq!(encode_on(&tables, format, threads).unwrap(), alone);
                assert_eq!(
                    encode_on(&tables[..1], format, threads).unwrap(),
                    alone[..1]
                );
            }
        }
        assert!(encode_all(&[], Format::Parquet).unwrap().is_empty());
    }
}
