//! Latency probes' round-trip times (docs/metrics.md): the summary's probe columns, over the
//! probes sent inside the window, and the per-probe table `probes`, one row per probe of the
//! run, from which an RTT distribution (a CDF) is drawn.

use super::window::Window;
use crate::probe::ProbeRecord;
use crate::result::{Column, Table, Value};
use crate::time::ns_to_s;

/// The summary's probe percentiles, in percent, with their column names.
const PERCENTILES: [(u64, &str); 3] = [
    (50, "probe_rtt_p50_ms"),
    (90, "probe_rtt_p90_ms"),
    (99, "probe_rtt_p99_ms"),
];

/// Columns of the per-probe table: `t_s`, `flow`, `group`, `rtt_ms`, `lost`.
pub const PROBE_COLUMNS: u64 = 5;

/// The `p`-th percentile (p in 1..=100) of ascending `sorted` by the nearest-rank method: the
/// value of rank ⌈p·n/100⌉, counted from 1, among the n values, so every percentile is a
/// measured value (the inverse of the empirical distribution function, definition 1 of
/// Hyndman and Fan, "Sample quantiles in statistical packages", The American Statistician
/// 50(4), 1996; NumPy's `method="inverted_cdf"`). The rank is computed in integers. NaN for
/// no values.
pub fn nearest_rank(sorted: &[f64], p: u64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[rank_index(sorted.len(), p)]
}

/// [`nearest_rank`] of `values` in any order, which it reorders: the value a sort by
/// `f64::total_cmp` would put at that rank, found in linear time without the sort.
pub fn nearest_rank_unsorted(values: &mut [f64], p: u64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    *values
        .select_nth_unstable_by(rank_index(values.len(), p), f64::total_cmp)
        .1
}

/// The index, from 0, of the nearest-rank `p`-th percentile among `n` ≥ 1 ascending values.
fn rank_index(n: usize, p: u64) -> usize {
    ((p * n as u64).div_ceil(100).max(1) - 1) as usize
}

/// One probe flow's probes.
pub struct ProbeFlow<'a> {
    /// Flow id.
    pub flow: u32,
    /// Its group.
    pub group: u32,
    /// Its probes, in the order sent.
    pub probes: &'a [ProbeRecord],
}

/// The summary's probe columns, in output order: the mean and the 50th, 90th and 99th
/// percentiles of the round-trip times of the probes sent inside `window` and answered (NaN
/// without any), how many were sent and how many were lost.
pub fn summary(flows: &[ProbeFlow], window: Window) -> Vec<(String, Value)> {
    let (mut sent, mut lost, mut sum_ns) = (0u64, 0u64, 0u128);
    let mut rtt_ns = Vec::new();
    for p in flows.iter().flat_map(|f| f.probes) {
        if !window.contains(p.sent_ns) {
            continue;
        }
        sent += 1;
        lost += u64::from(p.lost);
        if let Some(r) = p.rtt_ns {
            rtt_ns.push(r);
            sum_ns += u128::from(r);
        }
    }
    rtt_ns.sort_unstable();
    let rtt_ms: Vec<f64> = rtt_ns.iter().map(|&r| r as f64 * 1e-6).collect();
    let mean_ms = if rtt_ns.is_empty() {
        f64::NAN
    } else {
        sum_ns as f64 / rtt_ns.len() as f64 * 1e-6
    };
    let mut out = vec![("probe_rtt_mean_ms".to_string(), Value::Float(mean_ms))];
    for (p, name) in PERCENTILES {
        out.push((name.to_string(), Value::Float(nearest_rank(&rtt_ms, p))));
    }
    out.push(("probes_sent".to_string(), Value::Int(sent)));
    out.push(("probes_lost".to_string(), Value::Int(lost)));
    out
}

/// One row per probe of the run, flow by flow, each flow's in the order sent: `t_s` (request
/// sent), `flow`, `group`, `rtt_ms` (NaN when not answered), `lost` (1 when the request or the
/// response was dropped).
pub fn table(flows: &[ProbeFlow]) -> Table {
    let rows = || {
        flows
            .iter()
            .flat_map(|f| f.probes.iter().map(move |p| (f, p)))
    };
    let columns = vec![
        (
            "t_s",
            Column::Floats(rows().map(|(_, p)| ns_to_s(p.sent_ns)).collect()),
        ),
        (
            "flow",
            Column::Ints(rows().map(|(f, _)| i64::from(f.flow)).collect()),
        ),
        (
            "group",
            Column::Ints(rows().map(|(f, _)| i64::from(f.group)).collect()),
        ),
        (
            "rtt_ms",
            Column::Floats(
                rows()
                    .map(|(_, p)| p.rtt_ns.map_or(f64::NAN, |r| r as f64 * 1e-6))
                    .collect(),
            ),
        ),
        (
            "lost",
            Column::Ints(rows().map(|(_, p)| i64::from(p.lost)).collect()),
        ),
    ];
    Table {
        columns: columns
            .into_iter()
            .map(|(n, c)| (n.to_string(), c))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_takes_the_value_at_the_ceiling_rank() {
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(nearest_rank(&xs, 50), 5.0);
        assert_eq!(nearest_rank(&xs, 90), 9.0);
        assert_eq!(nearest_rank(&xs, 99), 10.0);
        assert_eq!(nearest_rank(&xs, 100), 10.0);
        assert_eq!(nearest_rank(&xs, 1), 1.0);
        assert_eq!(nearest_rank(&[7.0], 50), 7.0);
        assert!(nearest_rank(&[], 50).is_nan());
        let seventy: Vec<f64> = (1..=70).map(f64::from).collect();
        assert_eq!(nearest_rank(&seventy, 90), 63.0);
        assert_eq!(nearest_rank(&seventy, 99), 70.0);
        // Four values: the median is the second (rank ⌈2⌉), the 99th the fourth.
        assert_eq!(nearest_rank(&[1.0, 2.0, 3.0, 4.0], 50), 2.0);
        assert_eq!(nearest_rank(&[1.0, 2.0, 3.0, 4.0], 99), 4.0);
    }

    #[test]
    fn nearest_rank_unsorted_agrees_with_the_sorted_one() {
        let shuffled: Vec<f64> = (0..70).map(|i| f64::from((i * 37) % 70 + 1)).collect();
        let mut sorted = shuffled.clone();
        sorted.sort_by(f64::total_cmp);
        for p in [1, 50, 90, 99, 100] {
            let mut values = shuffled.clone();
            assert_eq!(
                nearest_rank_unsorted(&mut values, p),
                nearest_rank(&sorted, p)
            );
        }
        assert!(nearest_rank_unsorted(&mut [], 50).is_nan());
    }

    fn record(sent_ns: u64, rtt_ns: Option<u64>, lost: bool) -> ProbeRecord {
        ProbeRecord {
            sent_ns,
            rtt_ns,
            lost,
        }
    }

    #[test]
    fn summary_counts_the_probes_sent_in_the_window() {
        let a = [
            record(0, Some(1_000_000), false), // before the window
            record(1_000_000_000, Some(20_000_000), false),
            record(1_200_000_000, None, true), // lost
            record(1_400_000_000, Some(40_000_000), false),
            record(2_000_000_000, None, false), // unanswered at the end, not lost
        ];
        let b = [record(1_500_000_000, Some(30_000_000), false)];
        let flows = [
            ProbeFlow {
                flow: 3,
                group: 1,
                probes: &a,
            },
            ProbeFlow {
                flow: 7,
                group: 2,
                probes: &b,
            },
        ];
        let s = summary(&flows, Window::from_s(1.0, 2.0));
        let get = |k: &str| s.iter().find(|(n, _)| n == k).unwrap().1.clone();
        assert_eq!(get("probes_sent"), Value::Int(5));
        assert_eq!(get("probes_lost"), Value::Int(1));
        assert_eq!(get("probe_rtt_mean_ms"), Value::Float(30.0));
        assert_eq!(get("probe_rtt_p50_ms"), Value::Float(30.0));
        assert_eq!(get("probe_rtt_p90_ms"), Value::Float(40.0));
        let none = summary(&[], Window::from_s(1.0, 2.0));
        assert_eq!(none.len(), 6);
        assert!(none[..4]
            .iter()
            .all(|(_, v)| matches!(v, Value::Float(x) if x.is_nan())));
        assert_eq!(
            none[4..],
            [
                ("probes_sent".to_string(), Value::Int(0)),
                ("probes_lost".to_string(), Value::Int(0))
            ]
        );
        let t = table(&flows);
        assert_eq!(t.ints("flow").unwrap(), [3, 3, 3, 3, 3, 7]);
        assert_eq!(t.ints("lost").unwrap(), [0, 0, 1, 0, 0, 0]);
        assert_eq!(t.floats("t_s").unwrap()[1], 1.0);
        assert!(t.floats("rtt_ms").unwrap()[2].is_nan());
        assert_eq!(t.columns.len() as u64, PROBE_COLUMNS);
    }
}
