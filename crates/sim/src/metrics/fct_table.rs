//! Flow-completion times of finite TCP flows, per group and size bin: how many flows of the
//! bin started inside the window, how many completed by the end of the run, and the mean,
//! median, 95th and 99th percentile of their completion times (docs/metrics.md).

use crate::result::{Column, Table};

/// One finite flow.
pub struct FiniteFlow {
    /// Its group.
    pub group: u32,
    /// Object size, bytes.
    pub size_bytes: u64,
    /// Completion time (last byte acknowledged − start), seconds; None when unfinished.
    pub fct_s: Option<f64>,
}

/// The `q`-quantile of sorted `xs` by linear interpolation between closest ranks (NumPy's
/// default): position q·(n − 1).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// One row per group and size bin holding at least one flow; bins end at `edges_bytes`
/// (a flow of size s falls in the first bin whose edge exceeds s; the last bin is open).
pub fn build(flows: &[FiniteFlow], edges_bytes: &[u64]) -> Table {
    let bin_of = |s: u64| edges_bytes.partition_point(|&e| e <= s);
    let mut groups: Vec<u32> = flows.iter().map(|f| f.group).collect();
    groups.sort_unstable();
    groups.dedup();
    let (mut g_col, mut lo_col, mut hi_col, mut n_col, mut done_col) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut stats: Vec<[f64; 5]> = Vec::new();
    for &g in &groups {
        for bin in 0..=edges_bytes.len() {
            let members: Vec<&FiniteFlow> = flows
                .iter()
                .filter(|f| f.group == g && bin_of(f.size_bytes) == bin)
                .collect();
            if members.is_empty() {
                continue;
            }
            let mut fct: Vec<f64> = members.iter().filter_map(|f| f.fct_s).collect();
            fct.sort_by(f64::total_cmp);
            let mean_size =
                members.iter().map(|f| f.size_bytes as f64).sum::<f64>() / members.len() as f64;
            g_col.push(i64::from(g));
            lo_col.push(if bin == 0 {
                0
            } else {
                edges_bytes[bin - 1] as i64
            });
            hi_col.push(edges_bytes.get(bin).map_or(f64::INFINITY, |&e| e as f64));
            n_col.push(members.len() as i64);
            done_col.push(fct.len() as i64);
            stats.push(if fct.is_empty() {
                [mean_size, f64::NAN, f64::NAN, f64::NAN, f64::NAN]
            } else {
                [
                    mean_size,
                    fct.iter().sum::<f64>() / fct.len() as f64,
                    quantile(&fct, 0.5),
                    quantile(&fct, 0.95),
                    quantile(&fct, 0.99),
                ]
            });
        }
    }
    let mut columns = vec![
        ("group".to_string(), Column::Ints(g_col)),
        ("size_min_bytes".to_string(), Column::Ints(lo_col)),
        ("size_max_bytes".to_string(), Column::Floats(hi_col)),
        ("flows".to_string(), Column::Ints(n_col)),
        ("completed".to_string(), Column::Ints(done_col)),
    ];
    let names = [
        "size_mean_bytes",
        "fct_mean_s",
        "fct_median_s",
        "fct_p95_s",
        "fct_p99_s",
    ];
    for (k, name) in names.iter().enumerate() {
        columns.push((
            name.to_string(),
            Column::Floats(stats.iter().map(|r| r[k]).collect()),
        ));
    }
    Table { columns }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&xs, 0.5), 2.5);
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&xs, 1.0), 4.0);
        assert!((quantile(&xs, 0.95) - 3.85).abs() < 1e-12);
        assert_eq!(quantile(&[7.0], 0.99), 7.0);
    }

    #[test]
    fn flows_fall_in_their_size_bins() {
        let f = |group, size_bytes, fct_s| FiniteFlow {
            group,
            size_bytes,
            fct_s,
        };
        let flows = [
            f(0, 5_000, Some(0.1)),
            f(0, 9_999, Some(0.3)),
            f(0, 10_000, Some(1.0)),
            f(0, 2_000_000, None),
            f(1, 1, Some(0.05)),
        ];
        let t = build(&flows, &[10_000, 100_000]);
        assert_eq!(t.ints("group").unwrap(), [0, 0, 0, 1]);
        assert_eq!(t.ints("size_min_bytes").unwrap(), [0, 10_000, 100_000, 0]);
        assert_eq!(t.ints("flows").unwrap(), [2, 1, 1, 1]);
        assert_eq!(t.ints("completed").unwrap(), [2, 1, 0, 1]);
        let mean = t.floats("fct_mean_s").unwrap();
        assert!((mean[0] - 0.2).abs() < 1e-12);
        assert!(mean[2].is_nan(), "no flow of the open bin completed");
        assert_eq!(t.floats("size_max_bytes").unwrap()[2], f64::INFINITY);
    }
}
