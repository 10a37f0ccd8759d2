//! BIC TCP (Xu, Harfoush and Rhee, "Binary increase congestion control (BIC) for fast
//! long-distance networks", IEEE INFOCOM 2004) as ns-3.37's `TcpBic` implements it, after
//! Linux's `tcp_bic.c`:
//! - slow start: one segment per ACK of new data; the ACK's other segments go to congestion
//!   avoidance once cwnd reaches ssthresh;
//! - congestion avoidance: one segment once more than `cnt` segments have been acknowledged,
//!   `cnt` from the distance to the window at the last loss, W_max: binary search towards it
//!   (at most MaxIncr = 16 segments per RTT, smoothed over SmoothPart = 5 RTTs near it), then
//!   max probing above it; below LowWnd = 14 segments, NewReno's one segment per window;
//! - on congestion: W_max = cwnd, or β·cwnd with fast convergence when cwnd is below the last
//!   W_max; ssthresh = max(β·cwnd, 2) segments with β = 0.8, or NewReno's max(flight/2, 2)
//!   below LowWnd.
//!
//! The factors are ns-3.37's defaults (those of Linux), fixed here (no `[tcp]` keys yet). As in
//! ns-3.37 the binary-search distance is (W_max − cwnd)/B in whole segments (an integer
//! division).

use super::controller::{AckedInfo, Controller};
use super::reno::ns3_slow_start;
use crate::tcp::config::TcpConfig;

/// ns-3.37 `TcpBic::Beta`: the window kept after a loss.
const BETA: f64 = 0.8;
/// ns-3.37 `TcpBic::MaxIncr`: most segments added per RTT in the binary search.
const MAX_INCR: u32 = 16;
/// ns-3.37 `TcpBic::LowWnd`: below this window (segments) BIC behaves as NewReno.
const LOW_WND: u32 = 14;
/// ns-3.37 `TcpBic::SmoothPart`: RTTs to approach W_max from W_max − B.
const SMOOTH_PART: u32 = 5;
/// ns-3.37 `TcpBic::BinarySearchCoefficient`: B.
const B: u32 = 4;

/// BIC's state: the window at the last loss, and segments acknowledged since the last
/// increase.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bic {
    last_max_cwnd: u32,
    cwnd_cnt: u32,
}

impl Bic {
    /// ns-3.37 `TcpBic::Update`: segments to acknowledge per one-segment increase at `seg_cwnd`.
    fn cnt(&self, seg_cwnd: u32) -> u32 {
        if seg_cwnd < LOW_WND {
            return seg_cwnd;
        }
        let last_max = self.last_max_cwnd;
        let mut cnt = if seg_cwnd < last_max {
            let dist = (last_max - seg_cwnd) / B;
            if dist > MAX_INCR {
                seg_cwnd / MAX_INCR
            } else if dist <= 1 {
                seg_cwnd * SMOOTH_PART / B
            } else {
                seg_cwnd / dist
            }
        } else if seg_cwnd < last_max + B {
            seg_cwnd * SMOOTH_PART / B
        } else if seg_cwnd < last_max + MAX_INCR * (B - 1) {
            seg_cwnd * (B - 1) / (seg_cwnd - last_max)
        } else {
            seg_cwnd / MAX_INCR
        };
        if last_max == 0 {
            cnt = cnt.min(20);
        }
        cnt.max(1)
    }
}

impl Controller for Bic {
    fn new(_cfg: &TcpConfig) -> Self {
        Bic::default()
    }

    /// ns-3.37 `TcpBic::IncreaseWindow`.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        let (mut cwnd, acked) = ns3_slow_start(cwnd_pkts, ssthresh_pkts, info.acked_pkts);
        if cwnd >= ssthresh_pkts && acked > 0 {
            self.cwnd_cnt += acked;
            if self.cwnd_cnt > self.cnt(cwnd as u32) {
                cwnd += 1.0;
                self.cwnd_cnt = 0;
            }
        }
        cwnd
    }

    /// ns-3.37 `TcpBic::GetSsThresh`: W_max (with fast convergence), then ssthresh.
    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        let seg_cwnd = cwnd_pkts as u32;
        self.last_max_cwnd = if seg_cwnd < self.last_max_cwnd {
            (BETA * f64::from(seg_cwnd)) as u32
        } else {
            seg_cwnd
        };
        if seg_cwnd < LOW_WND {
            (f64::from(flight_pkts) / 2.0).max(2.0)
        } else {
            (f64::from(seg_cwnd) * BETA).max(2.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked_pkts: u32) -> AckedInfo {
        AckedInfo::of_segments(acked_pkts)
    }

    #[test]
    fn cnt_follows_the_binary_search_and_max_probing() {
        let mut b = Bic {
            last_max_cwnd: 200,
            cwnd_cnt: 0,
        };
        assert_eq!(b.cnt(10), 10, "below LowWnd: NewReno");
        assert_eq!(b.cnt(100), 100 / 16, "far below W_max: at most 16 per RTT");
        assert_eq!(
            b.cnt(180),
            180 / 5,
            "distance 5: a fifth of the way per RTT"
        );
        assert_eq!(b.cnt(198), 198 * 5 / 4, "next to W_max: smoothed");
        assert_eq!(b.cnt(202), 202 * 5 / 4, "just above W_max");
        assert_eq!(
            b.cnt(220),
            220 * 3 / 20,
            "max probing: slow start away from W_max"
        );
        assert_eq!(b.cnt(300), 300 / 16, "far above: linear");
        b.last_max_cwnd = 0;
        assert_eq!(b.cnt(1000), 20, "no loss yet: at most 5 % per RTT");
    }

    #[test]
    fn avoidance_adds_one_segment_once_more_than_cnt_are_acknowledged() {
        let mut b = Bic::default();
        // cwnd 10 < LowWnd: cnt = 10; the segment comes when 11 have been acknowledged.
        let mut cwnd = 10.0;
        for _ in 0..10 {
            cwnd = b.increase_window(&ack(1), cwnd, 2.0);
        }
        assert_eq!(cwnd, 10.0);
        assert_eq!(b.increase_window(&ack(1), cwnd, 2.0), 11.0);
        // Slow start: one segment per ACK, the rest above ssthresh counted.
        let mut b = Bic::default();
        assert_eq!(b.increase_window(&ack(2), 10.0, 64.0), 11.0);
        assert_eq!(b.cwnd_cnt, 0);
        assert_eq!(b.increase_window(&ack(2), 63.0, 64.0), 64.0);
        assert_eq!(b.cwnd_cnt, 1);
    }

    #[test]
    fn a_loss_sets_w_max_with_fast_convergence() {
        let mut b = Bic::default();
        assert_eq!(b.ssthresh_after_congestion(100.0, 100), 80.0);
        assert_eq!(b.last_max_cwnd, 100);
        // Below the last W_max: W_max = 0.8 · cwnd.
        assert_eq!(b.ssthresh_after_congestion(90.0, 90), 72.0);
        assert_eq!(b.last_max_cwnd, 72);
        // Below LowWnd: half the flight.
        assert_eq!(b.ssthresh_after_congestion(10.0, 9), 4.5);
    }
}
