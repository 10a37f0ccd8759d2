//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area networks",
//! ACM CCR 33(2), 2003) as ns-3.37's `TcpScalable` implements it on top of `TcpNewReno`:
//! - slow start as ns-3's NewReno: one segment per ACK of new data, the ACK's other segments
//!   spent on congestion avoidance once cwnd reaches ssthresh;
//! - congestion avoidance: one segment once w = min(cwnd, AIFactor) segments have been
//!   acknowledged since the last increase (AIFactor = 50: +1 % of cwnd per RTT at large
//!   windows, Kelly's a = 0.01), cwnd kept in whole segments;
//! - on congestion: ssthresh = max(2, ⌊(1 − MDFactor) · flight⌋) segments (MDFactor = 0.125,
//!   Kelly's b).
//!
//! AIFactor and MDFactor are ns-3.37's defaults, fixed here (no `[tcp]` keys yet).

use super::controller::{AckedInfo, Controller};
use super::reno::ns3_slow_start;
use crate::tcp::config::TcpConfig;

/// ns-3.37 `TcpScalable::AIFactor`: at most this many segments acknowledged per increase.
const AI_FACTOR: u32 = 50;
/// ns-3.37 `TcpScalable::MDFactor`: the share of the window given up on congestion.
const MD_FACTOR: f64 = 0.125;

/// Scalable TCP's state: segments acknowledged since the last increase, and its AIFactor.
#[derive(Clone, Copy, Debug)]
pub struct Scalable {
    ack_cnt: u32,
    ai_factor: u32,
}

impl Default for Scalable {
    fn default() -> Self {
        Scalable::with_ai_factor(AI_FACTOR)
    }
}

impl Scalable {
    /// Scalable TCP adding a segment per min(cwnd, `ai_factor`) acknowledged (YeAH's fast
    /// mode runs it with its own factor).
    pub fn with_ai_factor(ai_factor: u32) -> Self {
        Scalable {
            ack_cnt: 0,
            ai_factor,
        }
    }

    /// ns-3.37 `TcpScalable::CongestionAvoidance` on `acked` segments: a pending increase
    /// first (the count reached w on an earlier ACK), then this ACK's segments, w at a time.
    /// cwnd in whole segments, as ns-3 writes it back.
    fn congestion_avoidance(&mut self, cwnd_pkts: f64, acked: u32) -> f64 {
        let old = (cwnd_pkts as u32).max(1);
        let mut seg_cwnd = old;
        let w = seg_cwnd.min(self.ai_factor);
        if self.ack_cnt >= w {
            self.ack_cnt = 0;
            seg_cwnd += 1;
        }
        self.ack_cnt += acked;
        if self.ack_cnt >= w {
            seg_cwnd += self.ack_cnt / w;
            self.ack_cnt = 0;
        }
        if seg_cwnd == old {
            cwnd_pkts
        } else {
            f64::from(seg_cwnd)
        }
    }
}

impl Controller for Scalable {
    fn new(_cfg: &TcpConfig) -> Self {
        Scalable::default()
    }

    /// ns-3.37 `TcpNewReno::IncreaseWindow`: slow start (one segment for the ACK), then, at
    /// or above ssthresh, congestion avoidance on the segments left.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        let (mut cwnd, acked) = ns3_slow_start(cwnd_pkts, ssthresh_pkts, info.acked_pkts);
        if cwnd >= ssthresh_pkts {
            cwnd = self.congestion_avoidance(cwnd, acked);
        }
        cwnd
    }

    /// ns-3.37 `TcpScalable::GetSsThresh`: max(2, ⌊(1 − b) · flight⌋) segments.
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        (f64::from(flight_pkts) * (1.0 - MD_FACTOR))
            .max(2.0)
            .floor()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked_pkts: u32) -> AckedInfo {
        AckedInfo::of_segments(acked_pkts)
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack_and_spends_the_rest_above_ssthresh() {
        let mut s = Scalable::default();
        assert_eq!(s.increase_window(&ack(2), 10.0, 64.0), 11.0);
        // At 63 with 2 acknowledged: 64 by slow start, then one segment left for avoidance.
        assert_eq!(s.increase_window(&ack(2), 63.0, 64.0), 64.0);
        assert_eq!(s.ack_cnt, 1);
    }

    #[test]
    fn avoidance_adds_one_segment_per_min_cwnd_50_acknowledged() {
        // cwnd 20: one segment per 20 acknowledged (+5 % per RTT at this size).
        let mut s = Scalable::default();
        let mut cwnd = 20.0;
        for _ in 0..20 {
            cwnd = s.increase_window(&ack(1), cwnd, 2.0);
        }
        assert_eq!(cwnd, 21.0);
        // cwnd 1000: one segment per 50 acknowledged, so +20 over one window of ACKs of two.
        let mut s = Scalable::default();
        let mut cwnd = 1000.0;
        for _ in 0..500 {
            cwnd = s.increase_window(&ack(2), cwnd, 2.0);
        }
        assert_eq!(cwnd, 1020.0);
        // An ACK covering many segments adds them w at a time.
        let mut s = Scalable::default();
        assert_eq!(s.increase_window(&ack(120), 100.0, 2.0), 102.0);
    }

    #[test]
    fn congestion_keeps_seven_eighths_of_the_flight() {
        let mut s = Scalable::default();
        assert_eq!(s.ssthresh_after_congestion(100.0, 100), 87.0);
        assert_eq!(s.ssthresh_after_congestion(3.0, 2), 2.0);
        assert_eq!(s.cwnd_after_congestion(100.0, 87.0), 87.0);
    }
}
