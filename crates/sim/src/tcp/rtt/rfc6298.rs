//! RFC 6298's retransmission timer in floating point: SRTT/RTTVAR from every sample,
//! RTO = SRTT + max(G, 4·RTTVAR) within the minimum and maximum RTO, exponential back-off.

use crate::tcp::config::TcpConfig;

/// RFC 6298's estimator: SRTT/RTTVAR, minimum and maximum RTO, exponential back-off.
#[derive(Clone, Debug)]
pub struct Rfc6298Estimator {
    /// Smoothed RTT, seconds (None before the first sample).
    srtt_s: Option<f64>,
    /// RTT variation, seconds.
    rttvar_s: f64,
    /// RTO before back-off, seconds.
    rto_s: f64,
    /// Number of back-offs since the last valid sample.
    backoffs: u32,
    min_rto_s: f64,
    max_rto_s: f64,
    granularity_s: f64,
}

/// RFC 6298 gains: α = 1/8, β = 1/4.
const ALPHA: f64 = 0.125;
const BETA: f64 = 0.25;

impl Rfc6298Estimator {
    /// Before any sample the RTO is the configured initial value (RFC 6298 (2.1)).
    pub fn new(cfg: &TcpConfig) -> Self {
        Rfc6298Estimator {
            srtt_s: None,
            rttvar_s: 0.0,
            rto_s: cfg.initial_rto_s,
            backoffs: 0,
            min_rto_s: cfg.min_rto_s,
            max_rto_s: cfg.max_rto_s,
            granularity_s: cfg.clock_granularity_s,
        }
    }

    /// Take an RTT measurement `r_s` (RFC 6298 (2.2)–(2.4)) and clear the back-off.
    pub fn sample(&mut self, r_s: f64) {
        match self.srtt_s {
            None => {
                self.srtt_s = Some(r_s);
                self.rttvar_s = r_s / 2.0;
            }
            Some(srtt) => {
                self.rttvar_s = (1.0 - BETA) * self.rttvar_s + BETA * (srtt - r_s).abs();
                self.srtt_s = Some((1.0 - ALPHA) * srtt + ALPHA * r_s);
            }
        }
        let srtt = self.srtt_s.unwrap_or(r_s);
        self.rto_s = (srtt + self.granularity_s.max(4.0 * self.rttvar_s))
            .max(self.min_rto_s)
            .min(self.max_rto_s);
        self.backoffs = 0;
    }

    /// Take an RTT measurement as [`Rfc6298Estimator::sample`] does; with `keep_backoff` the
    /// back-off in force stays (ns-2 while echoes keep cwnd at one segment).
    pub fn sample_with_backoff(&mut self, r_s: f64, keep_backoff: bool) {
        let backoffs = self.backoffs;
        self.sample(r_s);
        if keep_backoff {
            self.backoffs = backoffs;
        }
    }

    /// End the back-off: the timeout is RTO again.
    pub fn clear_backoff(&mut self) {
        self.backoffs = 0;
    }

    /// Double the timeout after an expiry (RFC 6298 (5.5)).
    pub fn back_off(&mut self) {
        self.backoffs = (self.backoffs + 1).min(30);
    }

    /// The timeout in force, seconds: RTO · 2^backoffs, at most the maximum RTO.
    pub fn rto_s(&self) -> f64 {
        (self.rto_s * f64::from(1u32 << self.backoffs.min(30))).min(self.max_rto_s)
    }

    /// Smoothed RTT, seconds, if measured.
    pub fn srtt_s(&self) -> Option<f64> {
        self.srtt_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut cfg = TcpConfig::ns3();
        cfg.min_rto_s = 0.2;
        let mut e = Rfc6298Estimator::new(&cfg);
        assert_eq!(e.rto_s(), 1.0);
        e.sample(0.1);
        // SRTT = 0.1, RTTVAR = 0.05, RTO = 0.1 + 4·0.05 = 0.3
        assert!((e.rto_s() - 0.3).abs() < 1e-12);
        e.sample(0.2);
        // RTTVAR = 0.75·0.05 + 0.25·0.1 = 0.0625; SRTT = 0.875·0.1 + 0.125·0.2 = 0.1125
        assert!((e.srtt_s().unwrap() - 0.1125).abs() < 1e-12);
        assert!((e.rto_s() - (0.1125 + 0.25)).abs() < 1e-12);
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum() {
        let cfg = TcpConfig::ns3();
        let mut e = Rfc6298Estimator::new(&cfg);
        let mut seen = vec![e.rto_s()];
        for _ in 0..8 {
            e.back_off();
            seen.push(e.rto_s());
        }
        assert_eq!(seen, vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]);
        e.sample(0.05);
        assert_eq!(
            e.rto_s(),
            1.0,
            "a valid sample clears the back-off; MinRto 1 s"
        );
    }
}
