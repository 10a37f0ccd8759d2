//! ns-2's retransmission timer (Agent/TCP without timestamps), which follows Jacobson's
//! integer code of 4.4BSD:
//! - one segment at a time is timed: the first new segment sent while none is timed; the ACK
//!   that covers it gives the sample, and any retransmission cancels the timing (Karn's rule);
//! - the clock ticks every `tick` (tcpTick_, 10 ms): a sample is the number of tick
//!   boundaries between sending and acknowledging, at least one;
//! - SRTT is kept in ticks scaled by 8 and RTTVAR in ticks scaled by 4 (T_SRTT_BITS 3,
//!   T_RTTVAR_BITS 2), and RTO = SRTT + 4·RTTVAR in whole ticks;
//! - the timeout is max(RTO, minrto) times the back-off (the minimum applied before the
//!   back-off, as RFC 6298 (2.4) asks), at least two ticks and at most maxrto; the back-off
//!   doubles at each expiry while it is below 64 or the timeout below maxrto, and a valid
//!   sample resets it to 1;
//! - once the back-off exceeds 8 (the fourth expiry in a row) the SRTT is forgotten, so that
//!   the next sample starts the estimate afresh (4.4BSD tcp_timer.c).

use crate::tcp::config::TcpConfig;
use crate::time::{ns_to_s, s_to_ns};

/// SRTT scaling: 2^3 (T_SRTT_BITS).
const SRTT_SHIFT: u32 = 3;
/// RTTVAR scaling: 2^2 (T_RTTVAR_BITS).
const RTTVAR_SHIFT: u32 = 2;
/// The back-off multiplier stops doubling here even when maxrto would allow more.
const MAX_BACKOFF: u64 = 1 << 40;

/// ns-2's RTT estimator and retransmission timeout.
#[derive(Clone, Debug)]
pub struct Ns2Estimator {
    /// Clock tick, ns (a tick below 1 ns counts as 1 ns).
    tick_ns: u64,
    /// The segment being timed and when it was sent (rtt_seq_, rtt_ts_ while rtt_active_).
    timed: Option<(u32, u64)>,
    /// SRTT in ticks, scaled by 8; 0 before the first sample (t_srtt_).
    srtt_scaled: i64,
    /// RTTVAR in ticks, scaled by 4 (t_rttvar_).
    rttvar_scaled: i64,
    /// RTO before back-off and bounds, seconds (t_rtxcur_).
    rtxcur_s: f64,
    /// Back-off multiplier: 1, 2, 4, ... (t_backoff_).
    backoff: u64,
    min_rto_s: f64,
    max_rto_s: f64,
}

impl Ns2Estimator {
    /// Before any sample the RTO is the configured initial value (rtxcur_init_).
    pub fn new(cfg: &TcpConfig) -> Self {
        Ns2Estimator {
            tick_ns: s_to_ns(cfg.clock_granularity_s).max(1),
            timed: None,
            srtt_scaled: 0,
            rttvar_scaled: 0,
            rtxcur_s: cfg.initial_rto_s,
            backoff: 1,
            min_rto_s: cfg.min_rto_s,
            max_rto_s: cfg.max_rto_s,
        }
    }

    fn tick_s(&self) -> f64 {
        ns_to_s(self.tick_ns)
    }

    /// Segment `seq` went on the wire at `now_ns`; `new_data` is false for a retransmission.
    pub fn on_transmit(&mut self, seq: u32, new_data: bool, now_ns: u64) {
        if !new_data {
            self.timed = None;
        } else if self.timed.is_none() {
            self.timed = Some((seq, now_ns));
        }
    }

    /// Everything below `ackno` is acknowledged; returns whether this gave a sample. The
    /// sample ends the back-off unless `keep_backoff` (ns-2's newack while an ECN echo keeps
    /// cwnd at one segment: ecn_backoff_).
    pub fn on_new_ack(&mut self, ackno: u32, now_ns: u64, keep_backoff: bool) -> bool {
        match self.timed {
            Some((seq, sent_ns)) if ackno > seq => {
                self.timed = None;
                let ticks = now_ns / self.tick_ns - sent_ns / self.tick_ns;
                let backoff = self.backoff;
                self.sample_ticks(i64::try_from(ticks).unwrap_or(i64::MAX).max(1));
                if keep_backoff {
                    self.backoff = backoff;
                }
                true
            }
            _ => false,
        }
    }

    /// A partial ACK of NewReno's recovery acknowledged everything below `ackno`: the timed
    /// segment, if covered, is forgotten without a sample and the back-off ends (ns-2's
    /// partialnewack).
    pub fn end_timing(&mut self, ackno: u32) {
        if self.timed.is_some_and(|(seq, _)| ackno > seq) {
            self.timed = None;
            self.backoff = 1;
        }
    }

    /// End the back-off (t_backoff_ = 1) and keep the timing.
    pub fn clear_backoff(&mut self) {
        self.backoff = 1;
    }

    /// Fold a sample of `t` ticks into SRTT and RTTVAR and recompute the RTO.
    fn sample_ticks(&mut self, t: i64) {
        if self.srtt_scaled != 0 {
            let mut delta = t - (self.srtt_scaled >> SRTT_SHIFT);
            self.srtt_scaled = self.srtt_scaled.saturating_add(delta).max(1);
            delta = delta.saturating_abs() - (self.rttvar_scaled >> RTTVAR_SHIFT);
            self.rttvar_scaled = self.rttvar_scaled.saturating_add(delta).max(1);
        } else {
            // First sample: SRTT = t, RTTVAR = t/2.
            self.srtt_scaled = t.saturating_mul(1 << SRTT_SHIFT);
            self.rttvar_scaled = t.saturating_mul(1 << (RTTVAR_SHIFT - 1));
        }
        // (RTTVAR·4·2^(3−2) + SRTT·8) / 8 = SRTT + 4·RTTVAR, in whole ticks.
        let rto_ticks = self
            .rttvar_scaled
            .saturating_mul(1 << (2 + SRTT_SHIFT - RTTVAR_SHIFT))
            .saturating_add(self.srtt_scaled)
            >> SRTT_SHIFT;
        self.rtxcur_s = rto_ticks as f64 * self.tick_s();
        self.backoff = 1;
    }

    /// Double the timeout after an expiry.
    pub fn back_off(&mut self) {
        if (self.backoff < 64 || self.rto_s() < self.max_rto_s) && self.backoff < MAX_BACKOFF {
            self.backoff *= 2;
        }
        if self.backoff > 8 {
            self.srtt_scaled = 0;
        }
    }

    /// The timeout in force, seconds.
    pub fn rto_s(&self) -> f64 {
        (self.rtxcur_s.max(self.min_rto_s) * self.backoff as f64)
            .max(2.0 * self.tick_s())
            .min(self.max_rto_s)
    }

    /// Smoothed RTT, seconds, if measured.
    pub fn srtt_s(&self) -> Option<f64> {
        (self.srtt_scaled != 0)
            .then(|| self.srtt_scaled as f64 / f64::from(1u32 << SRTT_SHIFT) * self.tick_s())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ms_to_ns;

    fn estimator() -> Ns2Estimator {
        Ns2Estimator::new(&TcpConfig::ns2())
    }

    #[test]
    fn samples_count_tick_boundaries() {
        let mut e = estimator();
        // Sent at 5 ms, acknowledged at 93 ms: boundaries at 10, 20, ..., 90 ms = 9 ticks.
        e.on_transmit(0, true, ms_to_ns(5.0));
        assert!(e.on_new_ack(1, ms_to_ns(93.0), false));
        assert_eq!((e.srtt_scaled, e.rttvar_scaled), (72, 18));
        // RTO = 9 + 4·4.5 = 27 ticks.
        assert!((e.rto_s() - 0.27).abs() < 1e-12);
        // A sample within one tick still counts as one tick.
        e.on_transmit(1, true, ms_to_ns(101.0));
        assert!(e.on_new_ack(2, ms_to_ns(102.0), false));
        // delta = 1 − 9 = −8: SRTT·8 = 64; RTTVAR·4 = 18 + (8 − 4) = 22; RTO = 8 + 22 = 30.
        assert_eq!((e.srtt_scaled, e.rttvar_scaled), (64, 22));
        assert!((e.rto_s() - 0.30).abs() < 1e-12);
    }

    #[test]
    fn one_timed_segment_and_karn() {
        let mut e = estimator();
        e.on_transmit(0, true, 0);
        e.on_transmit(1, true, 0);
        assert!(
            !e.on_new_ack(0, ms_to_ns(50.0), false),
            "segment 0 not yet covered"
        );
        assert!(e.on_new_ack(1, ms_to_ns(50.0), false));
        assert!(
            !e.on_new_ack(2, ms_to_ns(51.0), false),
            "segment 1 was never timed"
        );
        e.on_transmit(2, true, ms_to_ns(60.0));
        e.on_transmit(1, false, ms_to_ns(61.0));
        assert!(
            !e.on_new_ack(3, ms_to_ns(120.0), false),
            "a retransmission cancels the timing"
        );
    }

    #[test]
    fn minimum_before_back_off_and_the_maximum() {
        let mut e = estimator();
        assert_eq!(e.rto_s(), 3.0, "rtxcur_init_");
        e.on_transmit(0, true, 0);
        e.on_new_ack(1, ms_to_ns(20.0), false);
        assert_eq!(e.rto_s(), 0.2, "minrto_");
        let mut seen = Vec::new();
        for _ in 0..10 {
            e.back_off();
            seen.push(e.rto_s());
        }
        assert_eq!(
            seen,
            vec![0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 60.0, 60.0]
        );
        assert_eq!(e.srtt_s(), None, "forgotten once the back-off exceeds 8");
    }
}
