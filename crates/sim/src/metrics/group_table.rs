//! The per-group table: for each flow group, its transport and flows, aggregate and mean
//! per-flow throughput, the one-way delay, its STD, 99th percentile and the jitter of its
//! packets, Jain's index
//! over its flows, and the loss rate of the data packets it sent inside the window
//! (docs/metrics.md).

use super::delivery::{per_flow_bps, Delivery};
use super::flow_stats::FlowStats;
use super::probes::nearest_rank_unsorted;
use super::summary::jain_index;
use crate::result::{Column, Table};

/// What the table is computed from: per flow i, `group_of[i]`, `stats[i]`, `active_s[i]`
/// (its active time inside the window) and `lost[i]` (its data packets sent inside the window
/// and dropped); per group, its transport.
pub struct GroupInputs<'a> {
    /// Each flow's group.
    pub group_of: &'a [u32],
    /// Each group's transport name.
    pub transport: &'a [&'a str],
    /// Each flow's receiver statistics.
    pub stats: &'a [FlowStats],
    /// Each flow's active time inside the window, s.
    pub active_s: &'a [f64],
    /// Each flow's lost data packets (sent inside the window).
    pub lost: &'a [u64],
    /// Window length, s.
    pub window_s: f64,
}

/// Data packets lost over those lost or received (0 without any).
pub fn loss_rate(lost: u64, received: u64) -> f64 {
    if lost + received == 0 {
        0.0
    } else {
        lost as f64 / (lost + received) as f64
    }
}

/// The `p`-th percentile (nearest rank) of the one-way delays of `flows`' packets, pooled,
/// seconds; NaN without any.
pub fn delay_percentile_s<'a>(flows: impl IntoIterator<Item = &'a FlowStats>, p: u64) -> f64 {
    let mut delays: Vec<f64> = flows
        .into_iter()
        .flat_map(|f| f.delays_s.iter().copied())
        .collect();
    nearest_rank_unsorted(&mut delays, p)
}

/// One row per group.
pub fn build(inp: &GroupInputs) -> Table {
    let (group_of, stats, active_s, window_s) =
        (inp.group_of, inp.stats, inp.active_s, inp.window_s);
    let n_groups = inp.transport.len();
    let mut flows = Vec::with_capacity(n_groups);
    let mut lost_pkts = Vec::with_capacity(n_groups);
    let mut rows: Vec<[f64; 8]> = Vec::with_capacity(n_groups);
    for g in 0..n_groups as u32 {
        let members: Vec<usize> = (0..group_of.len()).filter(|&i| group_of[i] == g).collect();
        let d = Delivery::of(members.iter().map(|&i| &stats[i]));
        let per_flow = per_flow_bps(members.iter().map(|&i| (&stats[i], active_s[i])));
        let mean_flow_bps = if per_flow.is_empty() {
            0.0
        } else {
            per_flow.iter().sum::<f64>() / per_flow.len() as f64
        };
        let lost: u64 = members.iter().map(|&i| inp.lost[i]).sum();
        let received: u64 = members
            .iter()
            .map(|&i| stats[i].received_sent_in_window)
            .sum();
        flows.push(members.len() as i64);
        lost_pkts.push(lost as i64);
        rows.push([
            d.delivered_bytes as f64 * 8.0 / window_s / 1e6,
            mean_flow_bps / 1e6,
            d.delay_mean_s * 1e3,
            d.delay_std_s * 1e3,
            delay_percentile_s(members.iter().map(|&i| &stats[i]), 99) * 1e3,
            d.jitter_s * 1e3,
            jain_index(&per_flow),
            loss_rate(lost, received),
        ]);
    }
    let names = [
        "throughput_mbps",
        "flow_throughput_mbps",
        "delay_mean_ms",
        "delay_std_ms",
        "delay_p99_ms",
        "jitter_ms",
        "jain_fairness",
        "loss_rate",
    ];
    let mut columns = vec![
        (
            "group".to_string(),
            Column::Ints((0..n_groups as i64).collect()),
        ),
        (
            "transport".to_string(),
            Column::Texts(inp.transport.iter().map(|t| t.to_string()).collect()),
        ),
        ("flows".to_string(), Column::Ints(flows)),
        ("lost_pkts".to_string(), Column::Ints(lost_pkts)),
    ];
    for (k, name) in names.iter().enumerate() {
        columns.push((
            name.to_string(),
            Column::Floats(rows.iter().map(|r| r[k]).collect()),
        ));
    }
    Table { columns }
}
