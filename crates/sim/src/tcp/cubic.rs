//! CUBIC congestion control, RFC 9438: the cubic window W_cubic(t) = C(t − K)³ + W_max
//! (§4.2), the Reno-friendly estimate W_est (§4.3), the concave/convex target clamped to
//! [cwnd, 1.5·cwnd] (§4.4–4.5), β_cubic = 0.7 (§4.6) and fast convergence (§4.7).
//! HyStart is not modelled.

/// CUBIC's state between congestion events.
#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    /// W_max: window just before the last reduction, segments.
    w_max_pkts: f64,
    /// Start of the current congestion-avoidance epoch, seconds (None: not started).
    epoch_start_s: Option<f64>,
    /// K: time to grow back to W_max, seconds.
    k_s: f64,
    /// W_est: the Reno-friendly window estimate, segments.
    w_est_pkts: f64,
}

impl Cubic {
    /// CUBIC with constant C, factor β and fast convergence on or off.
    pub fn new(c: f64, beta: f64, fast_convergence: bool) -> Self {
        Cubic {
            c,
            beta,
            fast_convergence,
            w_max_pkts: 0.0,
            epoch_start_s: None,
            k_s: 0.0,
            w_est_pkts: 0.0,
        }
    }

    /// α_cubic = 3(1 − β)/(1 + β), RFC 9438 §4.3.
    fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// W_cubic(t) = C(t − K)³ + W_max, RFC 9438 eq. (1).
    fn w_cubic(&self, t_s: f64) -> f64 {
        self.c * (t_s - self.k_s).powi(3) + self.w_max_pkts
    }

    /// A congestion event at window `cwnd`: remember W_max (with fast convergence, eq. (6)),
    /// end the epoch, and return the new ssthresh = max(β·cwnd, 2) (eq. (5)).
    pub fn on_congestion(&mut self, cwnd_pkts: f64) -> f64 {
        self.w_max_pkts = if self.fast_convergence && cwnd_pkts < self.w_max_pkts {
            cwnd_pkts * (1.0 + self.beta) / 2.0
        } else {
            cwnd_pkts
        };
        self.epoch_start_s = None;
        (cwnd_pkts * self.beta).max(2.0)
    }

    /// Congestion-avoidance growth for `acked` newly acknowledged segments at `now_s`, with
    /// smoothed RTT `rtt_s`. Returns the new cwnd.
    pub fn on_ack_avoidance(
        &mut self,
        cwnd_pkts: f64,
        acked_pkts: u32,
        now_s: f64,
        rtt_s: f64,
    ) -> f64 {
        let epoch_start = match self.epoch_start_s {
            Some(t) => t,
            None => {
                // New epoch (RFC 9438 §4.2, eq. (2)): K from the distance to W_max.
                if cwnd_pkts < self.w_max_pkts {
                    self.k_s = ((self.w_max_pkts - cwnd_pkts) / self.c).cbrt();
                } else {
                    self.k_s = 0.0;
                    self.w_max_pkts = cwnd_pkts;
                }
                self.w_est_pkts = cwnd_pkts;
                self.epoch_start_s = Some(now_s);
                now_s
            }
        };
        let t = now_s - epoch_start;
        let acked = f64::from(acked_pkts);
        // Reno-friendly estimate, RFC 9438 eq. (4).
        self.w_est_pkts += self.alpha() * acked / cwnd_pkts;
        let w_cubic_now = self.w_cubic(t);
        if w_cubic_now < self.w_est_pkts {
            // Reno-friendly region (§4.3): follow W_est.
            return self.w_est_pkts.max(cwnd_pkts);
        }
        // Concave and convex regions (§4.4–4.5): target one RTT ahead, clamped.
        let target = self.w_cubic(t + rtt_s).clamp(cwnd_pkts, 1.5 * cwnd_pkts);
        cwnd_pkts + (target - cwnd_pkts) / cwnd_pkts * acked
    }

    /// W_max, segments (for tests and traces).
    pub fn w_max_pkts(&self) -> f64 {
        self.w_max_pkts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_is_beta_and_fast_convergence_lowers_w_max() {
        let mut c = Cubic::new(0.4, 0.7, true);
        assert!((c.on_congestion(100.0) - 70.0).abs() < 1e-12);
        assert_eq!(c.w_max_pkts(), 100.0);
        // Second event below the previous W_max: W_max = 80·(1 + 0.7)/2 = 68.
        assert!((c.on_congestion(80.0) - 56.0).abs() < 1e-12);
        assert!((c.w_max_pkts() - 68.0).abs() < 1e-12);
    }

    #[test]
    fn window_returns_to_w_max_after_k_seconds() {
        let mut c = Cubic::new(0.4, 0.7, false);
        let mut cwnd = c.on_congestion(100.0);
        // K = cbrt(100·0.3/0.4) = cbrt(75) ≈ 4.217 s. Feed one ACK per 10 ms.
        let k = 75f64.cbrt();
        let rtt = 0.01;
        let mut t = 0.0;
        while t < k {
            cwnd = c.on_ack_avoidance(cwnd, 1, t, rtt);
            t += rtt;
        }
        assert!(
            (cwnd - 100.0).abs() < 2.0,
            "cwnd {cwnd} near W_max at t = K"
        );
    }
}
