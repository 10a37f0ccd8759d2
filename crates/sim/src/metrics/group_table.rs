//! The per-group table: for each flow group, its flows, aggregate and mean per-flow
//! throughput, the one-way delay, its STD and the jitter of its packets, and Jain's index over
//! its flows (docs/metrics.md).

use super::delivery::{per_flow_bps, Delivery};
use super::flow_stats::FlowStats;
use super::summary::jain_index;
use crate::result::{Column, Table};

/// One row per group of `n_groups`; `group_of[i]`, `stats[i]` and `active_s[i]` are flow i's
/// group, statistics and active time inside the window of `window_s` seconds.
pub fn build(
    group_of: &[u32],
    n_groups: usize,
    stats: &[FlowStats],
    active_s: &[f64],
    window_s: f64,
) -> Table {
    let mut flows = Vec::with_capacity(n_groups);
    let mut rows: Vec<[f64; 6]> = Vec::with_capacity(n_groups);
    for g in 0..n_groups as u32 {
        let members: Vec<usize> = (0..group_of.len()).filter(|&i| group_of[i] == g).collect();
        let d = Delivery::of(members.iter().map(|&i| &stats[i]));
        let per_flow = per_flow_bps(members.iter().map(|&i| (&stats[i], active_s[i])));
        let mean_flow_bps = if per_flow.is_empty() {
            0.0
        } else {
            per_flow.iter().sum::<f64>() / per_flow.len() as f64
        };
        flows.push(members.len() as i64);
        rows.push([
            d.delivered_bytes as f64 * 8.0 / window_s / 1e6,
            mean_flow_bps / 1e6,
            d.delay_mean_s * 1e3,
            d.delay_std_s * 1e3,
            d.jitter_s * 1e3,
            jain_index(&per_flow),
        ]);
    }
    let names = [
        "throughput_mbps",
        "flow_throughput_mbps",
        "delay_mean_ms",
        "delay_std_ms",
        "jitter_ms",
        "jain_fairness",
    ];
    let mut columns = vec![
        (
            "group".to_string(),
            Column::Ints((0..n_groups as i64).collect()),
        ),
        ("flows".to_string(), Column::Ints(flows)),
    ];
    for (k, name) in names.iter().enumerate() {
        columns.push((
            name.to_string(),
            Column::Floats(rows.iter().map(|r| r[k]).collect()),
        ));
    }
    Table { columns }
}
