//! The one-row summary of a run, computed from the window's counters. Definitions are in
//! docs/metrics.md; the BetaRED paper's five metrics (§3.2) are avg_queue_pkts, drop_rate,
//! throughput_mbps, delay_mean_ms and jitter_ms.

use super::counts::Totals;
use super::delivery::{per_flow_bps, Delivery};
use super::flow_stats::FlowStats;
use super::port_stats::PortStats;
use super::window::Window;
use crate::result::Value;
use crate::time::ns_to_s;

/// Jain's fairness index (Σx)² / (n·Σx²) over the given throughputs (1 for n = 0). It is at
/// most 1 exactly; the rounding of equal shares can land a hair above, which is cut off.
pub fn jain_index(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sum_sq == 0.0 {
        1.0
    } else {
        (sum * sum / (xs.len() as f64 * sum_sq)).min(1.0)
    }
}

/// First time from which every 1-second mean of the sampled queue stays within
/// target·(1 ± band) up to the end of the window; NaN when it never settles. The samples come
/// in time order, so the 1-second bins are met one after the other and none is stored.
pub fn settle_time_s(
    t_s: &[f64],
    queue_pkts: &[i64],
    window: &Window,
    target: f64,
    band: f64,
) -> f64 {
    let start = window.start_ns as f64 * 1e-9;
    // Bins are [start + k, start + k + 1) s; the last one also takes the sample at the window's
    // end, which would otherwise be a bin of its own, judged on one sample.
    let last_bin = ((window.end_ns - window.start_ns) as f64 * 1e-9).ceil() as usize;
    let last_bin = last_bin.saturating_sub(1);
    let inside = |sum: f64, n: usize| ((sum / n as f64) - target).abs() <= band * target;
    // The bin being filled (index, sum, count), and the last finished bin outside the band.
    let mut current: Option<(usize, f64, usize)> = None;
    let mut last_out: Option<usize> = None;
    for (&t, &q) in t_s.iter().zip(queue_pkts) {
        if !window.contains((t * 1e9).round() as u64) {
            continue;
        }
        let bin = (((t - start).max(0.0)).floor() as usize).min(last_bin);
        match &mut current {
            Some((b, sum, n)) if *b == bin => {
                *sum += q as f64;
                *n += 1;
            }
            _ => {
                if let Some((b, sum, n)) = current {
                    if !inside(sum, n) {
                        last_out = Some(b);
                    }
                }
                current = Some((bin, q as f64, 1));
            }
        }
    }
    let Some((last_bin, sum, n)) = current else {
        return f64::NAN;
    };
    if !inside(sum, n) {
        return f64::NAN;
    }
    match last_out {
        None => start,
        Some(out) if out < last_bin => start + (out + 1) as f64,
        Some(_) => f64::NAN,
    }
}

/// Everything the summary is computed from.
pub struct SummaryInputs<'a> {
    /// AQM name of the described port.
    pub aqm: &'a str,
    /// Name of the described port (as in the per-port table).
    pub port_name: &'a str,
    /// Simulated duration, s.
    pub duration_s: f64,
    /// Seed.
    pub seed: u64,
    /// Measurement window.
    pub window: Window,
    /// Counters of the described port: the measured port `Scenario::summary_port` picks
    /// (the dumbbell's bottleneck).
    pub port: &'a PortStats,
    /// Flows of the run, probe flows included.
    pub flows_total: u64,
    /// Per-flow statistics of the flows that carry load (probe flows left out).
    pub flows: &'a [FlowStats],
    /// Each of those flows' active time inside the window, s.
    pub active_s: &'a [f64],
    /// Mean of the AQM's averaged queue over the samples in the window (None: no such queue).
    pub aqm_avg_queue_pkts: Option<f64>,
    /// Settling time, s (NaN when not applicable).
    pub settle_time_s: f64,
    /// Run-wide packet counts.
    pub counts: Totals,
    /// Data packets still in queues or on links at the end.
    pub data_in_flight: u64,
    /// Events processed.
    pub events: u64,
    /// Packets put on a link by any port, every hop counted (whole run).
    pub link_transmissions: u64,
}

/// The summary row, in output order.
pub fn build(s: &SummaryInputs) -> Vec<(String, Value)> {
    let port = s.port;
    let len_s = s.window.len_s();
    let (avg_q, std_q) = port.queue_pkts.mean_std();
    let d = Delivery::of(s.flows);
    let per_flow = per_flow_bps(s.flows.iter().zip(s.active_s.iter().copied()));
    let f = |k: &str, v: f64| (k.to_string(), Value::Float(v));
    let i = |k: &str, v: u64| (k.to_string(), Value::Int(v));
    vec![
        ("aqm".to_string(), Value::Text(s.aqm.to_string())),
        ("port".to_string(), Value::Text(s.port_name.to_string())),
        f("duration_s", s.duration_s),
        f("window_start_s", ns_to_s(s.window.start_ns)),
        f("window_end_s", ns_to_s(s.window.end_ns)),
        i("seed", s.seed),
        i("flows_total", s.flows_total),
        f("avg_queue_pkts", avg_q),
        f("std_queue_pkts", std_q),
        i("max_queue_pkts", port.max_queue_pkts.into()),
        f("avg_queue_aqm_pkts", s.aqm_avg_queue_pkts.unwrap_or(avg_q)),
        f("drop_rate", port.per_arrival(port.drops())),
        f(
            "early_drop_rate",
            port.per_arrival(port.early_drops + port.dequeue_drops),
        ),
        f("forced_drop_rate", port.per_arrival(port.forced_drops)),
        f("overflow_drop_rate", port.per_arrival(port.overflow_drops)),
        f("mark_rate", port.per_arrival(port.marks)),
        f("link_efficiency", port.link_efficiency()),
        f(
            "throughput_mbps",
            d.delivered_bytes as f64 * 8.0 / len_s / 1e6,
        ),
        f("delay_mean_ms", d.delay_mean_s * 1e3),
        f("delay_std_ms", d.delay_std_s * 1e3),
        f("jitter_ms", d.jitter_s * 1e3),
        f("jain_fairness", jain_index(&per_flow)),
        f("settle_time_s", s.settle_time_s),
        i("bottleneck_arrivals", port.arrivals),
        i("bottleneck_departures", port.departures),
        i("bottleneck_drops", port.drops()),
        i("bottleneck_marks", port.marks),
        i("events", s.events),
        i("link_transmissions", s.link_transmissions),
        i("data_sent", s.counts.data_sent),
        i("data_delivered", s.counts.data_delivered),
        i("data_dropped", s.counts.data_dropped),
        i("data_in_flight", s.data_in_flight),
        i("acks_sent", s.counts.acks_sent),
        i("acks_delivered", s.counts.acks_delivered),
        i("acks_dropped", s.counts.acks_dropped),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_of_equal_and_skewed_shares() {
        assert!((jain_index(&[5.0, 5.0, 5.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // Equal shares whose sums round up (1.0000000000000002 without the cut).
        let equal = [0.1 + 0.2; 7];
        assert!(jain_index(&equal) <= 1.0);
    }

    #[test]
    fn settles_when_the_last_excursion_ends() {
        let w = Window::from_s(0.0, 5.0);
        let t: Vec<f64> = (0..50).map(|i| i as f64 * 0.1).collect();
        let q: Vec<i64> = t.iter().map(|&t| if t < 2.0 { 500 } else { 250 }).collect();
        assert_eq!(settle_time_s(&t, &q, &w, 250.0, 0.2), 2.0);
        let never: Vec<i64> = vec![0; 50];
        assert!(settle_time_s(&t, &never, &w, 250.0, 0.2).is_nan());
        // Empty bins between samples count as settled.
        let w = Window::from_s(10.0, 1e9);
        let t = [10.0, 10.5, 11.0, 5e8, 9e8];
        let q = [500, 500, 250, 250, 250];
        assert_eq!(settle_time_s(&t, &q, &w, 250.0, 0.2), 11.0);
        assert!(settle_time_s(&t[..2], &q[..2], &w, 250.0, 0.2).is_nan());
        // The sample at the window's end belongs to the last full bin: 10 samples of 250 and
        // one of 0 average 227.3, inside the band.
        let w = Window::from_s(0.0, 1.0);
        let t: Vec<f64> = (0..=10).map(|i| i as f64 * 0.1).collect();
        let q: Vec<i64> = t.iter().map(|&t| if t < 1.0 { 250 } else { 0 }).collect();
        assert_eq!(settle_time_s(&t, &q, &w, 250.0, 0.2), 0.0);
    }
}
