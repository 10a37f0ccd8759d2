//! Measurement: the window, the counters of each measured port, per-flow statistics and what
//! groups of flows delivered, flow-completion times, latency probes' round-trip times, the time
//! series and the summary. Every metric is defined once, in docs/metrics.md.

pub mod counts;
pub mod delivery;
pub mod dual_queue;
pub mod fct_table;
pub mod flow_stats;
pub mod group_table;
pub mod port_series;
pub mod port_stats;
pub mod port_table;
pub mod probes;
pub mod series;
pub mod summary;
pub mod time_average;
pub mod window;
