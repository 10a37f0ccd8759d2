//! What a set of flows delivered over the window: payload, and the one-way delay and jitter
//! of their data packets, pooled over packets (the summary's, and each group's).

use super::flow_stats::FlowStats;

/// Pooled delivery statistics of some flows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Delivery {
    /// Payload bytes delivered in order inside the window.
    pub delivered_bytes: u64,
    /// Mean one-way delay of their data packets, seconds (0 without any).
    pub delay_mean_s: f64,
    /// Population standard deviation of those delays, seconds.
    pub delay_std_s: f64,
    /// Mean |d_i − d_(i−1)| between consecutive packets of a flow, seconds (RFC 3393's IPDV
    /// magnitude, pooled over flows).
    pub jitter_s: f64,
}

impl Delivery {
    /// Pool the statistics of `flows`.
    pub fn of<'a>(flows: impl IntoIterator<Item = &'a FlowStats>) -> Self {
        let (mut bytes, mut n, mut sum, mut sq, mut jn, mut js) = (0, 0, 0.0, 0.0, 0, 0.0);
        for f in flows {
            bytes += f.delivered_bytes;
            n += f.delay_count;
            sum += f.delay_sum_s;
            sq += f.delay_sum_sq;
            jn += f.jitter_count;
            js += f.jitter_sum_s;
        }
        let mean = if n > 0 { sum / n as f64 } else { 0.0 };
        let var = if n > 0 {
            (sq / n as f64 - mean * mean).max(0.0)
        } else {
            0.0
        };
        Delivery {
            delivered_bytes: bytes,
            delay_mean_s: mean,
            delay_std_s: var.sqrt(),
            jitter_s: if jn > 0 { js / jn as f64 } else { 0.0 },
        }
    }
}

/// Throughput of each flow active for some time inside the window, b/s: its delivered bits
/// over its active time (`active_s`, per flow).
pub fn per_flow_bps<'a>(flows: impl IntoIterator<Item = (&'a FlowStats, f64)>) -> Vec<f64> {
    flows
        .into_iter()
        .filter(|&(_, a)| a > 0.0)
        .map(|(f, a)| f.delivered_bytes as f64 * 8.0 / a)
        .collect()
}
