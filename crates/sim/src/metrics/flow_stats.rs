//! Per-flow delivery statistics over the measurement window: in-order payload delivered,
//! one-way delay of every data packet that reaches the receiver, and jitter between
//! consecutive packets of the flow, and how many of the packets it sent inside the window
//! arrived (against the drops of those packets, its loss rate), and every delay inside the
//! window (for percentiles).

/// One flow's receiver-side statistics.
#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    /// Payload bytes delivered in order inside the window.
    pub delivered_bytes: u64,
    /// Data packets that arrived inside the window.
    pub delay_count: u64,
    /// Sum of their one-way delays, seconds.
    pub delay_sum_s: f64,
    /// Sum of squared delays, s².
    pub delay_sum_sq: f64,
    /// Number of |d_i − d_(i−1)| terms inside the window.
    pub jitter_count: u64,
    /// Sum of |d_i − d_(i−1)|, seconds.
    pub jitter_sum_s: f64,
    /// Data packets sent inside the window that arrived (at any time).
    pub received_sent_in_window: u64,
    /// One-way delay of each data packet that arrived inside the window, seconds, in order of
    /// arrival (for the per-group percentiles).
    pub delays_s: Vec<f64>,
    /// Delay of the previous arrival of this flow, seconds.
    last_delay_s: Option<f64>,
}

impl FlowStats {
    /// A data packet arrived with one-way delay `delay_s`; `in_window` says whether it counts.
    pub fn arrival(&mut self, delay_s: f64, in_window: bool) {
        if in_window {
            self.delay_count += 1;
            self.delay_sum_s += delay_s;
            self.delay_sum_sq += delay_s * delay_s;
            self.delays_s.push(delay_s);
            if let Some(prev) = self.last_delay_s {
                self.jitter_count += 1;
                self.jitter_sum_s += (delay_s - prev).abs();
            }
        }
        self.last_delay_s = Some(delay_s);
    }
}
