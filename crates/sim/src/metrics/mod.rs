//! Measurement: the window, the bottleneck's counters, per-flow statistics and what groups of
//! flows delivered, the time series and the summary. Every metric is defined once, in docs/metrics.md.

pub mod counts;
pub mod delivery;
pub mod flow_stats;
pub mod group_table;
pub mod port_stats;
pub mod series;
pub mod summary;
pub mod time_average;
pub mod window;
