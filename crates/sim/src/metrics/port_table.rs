//! The per-port table: for each measured port (one with a managed queue), its queue mean,
//! STD and maximum, drop and mark rates, link efficiency and throughput over the window
//! (docs/metrics.md). The summary reports one of these ports (`measure.port`, or the default
//! rule of `Scenario::summary_port`) with the same definitions. With a window covering the
//! whole run, each row keeps the counting identity arrivals = departures + drops +
//! queue_end_pkts. A DualPI2 port adds its L and C queues' counts and sojourn times
//! ([`super::dual_queue`]); other ports have 0 and NaN there.

use super::dual_queue::{DualQueueCounts, QueueCounts};
use super::port_stats::PortStats;
use super::window::Window;
use crate::net::qdisc::flow_queues::FqCounters;
use crate::result::{Column, Table};

/// What the table reports of one port.
pub struct PortRow<'a> {
    /// Port name.
    pub name: &'a str,
    /// AQM name.
    pub aqm: &'a str,
    /// Link rate, b/s.
    pub rate_bps: f64,
    /// Counters over the window.
    pub stats: &'a PortStats,
    /// Mean of the AQM's averaged queue over the samples in the window (None: no such
    /// queue; the instantaneous mean is reported instead).
    pub aqm_avg_queue_pkts: Option<f64>,
    /// Packets still waiting when the run ends.
    pub queue_end_pkts: u32,
    /// The flow scheduler's counters, on a flow-queueing port (0 in every column otherwise).
    pub fq: Option<FqCounters>,
    /// The L and C queues' counters, on a DualPI2 port.
    pub dual: Option<DualQueueCounts>,
}

/// One queue of a dual-queue port's counters.
type Pick = fn(&DualQueueCounts) -> &QueueCounts;

/// One row per port, in the order given.
pub fn build(rows: &[PortRow], window: Window) -> Table {
    let floats = |f: &dyn Fn(&PortRow) -> f64| Column::Floats(rows.iter().map(f).collect());
    let ints = |f: &dyn Fn(&PortStats) -> u64| {
        Column::Ints(rows.iter().map(|r| f(r.stats) as i64).collect())
    };
    let fq = |f: &dyn Fn(&FqCounters) -> u64| {
        Column::Ints(
            rows.iter()
                .map(|r| r.fq.as_ref().map_or(0, f) as i64)
                .collect(),
        )
    };
    let queue = |f: Pick, g: &dyn Fn(&QueueCounts) -> u64| {
        Column::Ints(
            rows.iter()
                .map(|r| r.dual.as_ref().map_or(0, |d| g(f(d))) as i64)
                .collect(),
        )
    };
    let sojourn = |f: Pick, g: &dyn Fn(&QueueCounts) -> f64| {
        Column::Floats(
            rows.iter()
                .map(|r| r.dual.as_ref().map_or(f64::NAN, |d| g(f(d))))
                .collect(),
        )
    };
    let (l, c): (Pick, Pick) = (|d| &d.l, |d| &d.c);
    let len_s = window.len_s();
    let columns = vec![
        ("port", Column::Ints((0..rows.len() as i64).collect())),
        (
            "name",
            Column::Texts(rows.iter().map(|r| r.name.to_string()).collect()),
        ),
        (
            "aqm",
            Column::Texts(rows.iter().map(|r| r.aqm.to_string()).collect()),
        ),
        ("rate_mbps", floats(&|r| r.rate_bps / 1e6)),
        (
            "avg_queue_pkts",
            floats(&|r| r.stats.queue_pkts.mean_std().0),
        ),
        (
            "std_queue_pkts",
            floats(&|r| r.stats.queue_pkts.mean_std().1),
        ),
        ("max_queue_pkts", ints(&|s| s.max_queue_pkts.into())),
        (
            "avg_queue_aqm_pkts",
            floats(&|r| {
                r.aqm_avg_queue_pkts
                    .unwrap_or_else(|| r.stats.queue_pkts.mean_std().0)
            }),
        ),
        (
            "drop_rate",
            floats(&|r| r.stats.per_arrival(r.stats.drops())),
        ),
        (
            "early_drop_rate",
            floats(&|r| {
                let s = r.stats;
                s.per_arrival(s.early_drops + s.dequeue_drops)
            }),
        ),
        (
            "forced_drop_rate",
            floats(&|r| r.stats.per_arrival(r.stats.forced_drops)),
        ),
        (
            "overflow_drop_rate",
            floats(&|r| r.stats.per_arrival(r.stats.overflow_drops)),
        ),
        ("mark_rate", floats(&|r| r.stats.per_arrival(r.stats.marks))),
        ("link_efficiency", floats(&|r| r.stats.link_efficiency())),
        (
            "throughput_mbps",
            floats(&|r| r.stats.departed_bytes as f64 * 8.0 / len_s / 1e6),
        ),
        ("arrivals", ints(&|s| s.arrivals)),
        ("departures", ints(&|s| s.departures)),
        ("data_departures", ints(&|s| s.data_departures)),
        ("drops", ints(&|s| s.drops())),
        ("marks", ints(&|s| s.marks)),
        (
            "queue_end_pkts",
            Column::Ints(rows.iter().map(|r| i64::from(r.queue_end_pkts)).collect()),
        ),
        ("flow_queues_used", fq(&|c| c.flow_queues_used)),
        ("new_flows", fq(&|c| c.new_flows)),
        ("collisions", fq(&|c| c.collisions)),
        ("overlimit_drops", fq(&|c| c.overlimit_drops)),
        ("ce_threshold_marks", fq(&|c| c.ce_threshold_marks)),
        ("l_arrivals", queue(l, &|q| q.arrivals)),
        ("l_marks", queue(l, &|q| q.marks)),
        ("l_step_marks", queue(l, &|q| q.step_marks)),
        ("l_drops", queue(l, &|q| q.drops)),
        (
            "l_sojourn_mean_ms",
            sojourn(l, &QueueCounts::sojourn_mean_ms),
        ),
        (
            "l_sojourn_p99_ms",
            sojourn(l, &|q| q.sojourn_percentile_ms(99)),
        ),
        ("c_arrivals", queue(c, &|q| q.arrivals)),
        ("c_marks", queue(c, &|q| q.marks)),
        ("c_drops", queue(c, &|q| q.drops)),
        (
            "c_sojourn_mean_ms",
            sojourn(c, &QueueCounts::sojourn_mean_ms),
        ),
        (
            "c_sojourn_p99_ms",
            sojourn(c, &|q| q.sojourn_percentile_ms(99)),
        ),
    ];
    Table {
        columns: columns
            .into_iter()
            .map(|(n, c)| (n.to_string(), c))
            .collect(),
    }
}
