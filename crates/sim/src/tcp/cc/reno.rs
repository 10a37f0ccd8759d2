//! Reno's window rules (RFC 5681 §3.1): slow start, +1 segment per RTT in congestion
//! avoidance, halve the flight size (or, as ns-2 does, the window) on congestion.
//!
//! Growth counts segments acknowledged, not ACKs, in both phases, unless the configuration
//! asks for growth per ACK (`window_growth = "per_ack"`, which passes 1 here). ns-3.37's
//! TcpNewReno and ns-2's Reno count ACKs: +1 segment per ACK in slow start (ns-3 spends any other
//! segments of that ACK on one congestion-avoidance step once ssthresh is reached) and
//! +1/cwnd per ACK in congestion avoidance (ns-3 truncates that to whole bytes, at least one).
//! With an ACK per segment (ns-2's TCPSink) the two differ only where one ACK covers several
//! segments (after a hole is filled); with delayed ACKs every two segments (ns-3's default)
//! ns-3's NewReno grows about half as fast as per-segment counting.

use super::controller::{AckedInfo, Controller};
use crate::tcp::config::{TcpConfig, WindowGrowth, WindowReduction};

/// Reno with the configuration's growth and reduction rules.
#[derive(Clone, Copy, Debug)]
pub struct Reno {
    growth: WindowGrowth,
    reduction: WindowReduction,
}

impl Controller for Reno {
    fn new(cfg: &TcpConfig) -> Self {
        Reno {
            growth: cfg.window_growth,
            reduction: cfg.window_reduction,
        }
    }

    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        let counted = match self.growth {
            WindowGrowth::PerSegment => info.acked_pkts,
            WindowGrowth::PerAck => 1,
        };
        increase_window(cwnd_pkts, ssthresh_pkts, counted)
    }

    /// From the flight size (RFC 5681) or from cwnd (ns-2).
    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        match self.reduction {
            WindowReduction::Flight => ssthresh_after_loss(flight_pkts),
            WindowReduction::Cwnd => ssthresh_from_cwnd(cwnd_pkts),
        }
    }

    /// Reducing from cwnd, half of cwnd (ns-2's slowdown with precisionReduce_, which keeps
    /// the fraction ssthresh drops); otherwise ssthresh.
    fn cwnd_after_congestion(&self, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        match self.reduction {
            WindowReduction::Cwnd => cwnd_pkts / 2.0,
            WindowReduction::Flight => ssthresh_pkts,
        }
    }

    /// Growing per ACK, as ns-2's opencwnd runs on every ACK of new data.
    fn grows_on_recovery_exit(&self) -> bool {
        self.growth == WindowGrowth::PerAck
    }
}

/// Window growth on an ACK of `acked_pkts` new segments outside recovery: cwnd += acked in
/// slow start (RFC 5681 §3.1 with RFC 3465 byte counting), cwnd += acked/cwnd in congestion
/// avoidance (RFC 5681 eq. (3), per segment acknowledged).
fn increase_window(cwnd_pkts: f64, ssthresh_pkts: f64, acked_pkts: u32) -> f64 {
    let acked = f64::from(acked_pkts);
    if cwnd_pkts < ssthresh_pkts {
        cwnd_pkts + acked
    } else {
        cwnd_pkts + acked / cwnd_pkts
    }
}

/// ns-3.37 `TcpNewReno::SlowStart`, which the algorithms built on `TcpNewReno` share: below
/// ssthresh an ACK of new data adds one segment, whatever it acknowledges. Returns cwnd and the
/// segments of the ACK left for congestion avoidance.
pub fn ns3_slow_start(cwnd_pkts: f64, ssthresh_pkts: f64, acked_pkts: u32) -> (f64, u32) {
    if cwnd_pkts < ssthresh_pkts && acked_pkts >= 1 {
        (cwnd_pkts + 1.0, acked_pkts - 1)
    } else {
        (cwnd_pkts, acked_pkts)
    }
}

/// ns-3.37 `TcpNewReno::CongestionAvoidance`: an ACK of new data adds max(1, SMSS²/cwnd)
/// bytes, truncated to whole bytes, whatever number of segments it acknowledges.
pub fn ns3_congestion_avoidance(cwnd_pkts: f64, acked_pkts: u32, segment_bytes: u32) -> f64 {
    if acked_pkts == 0 {
        return cwnd_pkts;
    }
    let mss = f64::from(segment_bytes);
    let adder_bytes = (mss * mss / (cwnd_pkts * mss)).max(1.0).floor();
    cwnd_pkts + adder_bytes / mss
}

/// ns-3.37 `TcpNewReno::IncreaseWindow`: slow start, then, at or above ssthresh, congestion
/// avoidance on the segments left.
pub fn ns3_increase_window(
    cwnd_pkts: f64,
    ssthresh_pkts: f64,
    acked_pkts: u32,
    segment_bytes: u32,
) -> f64 {
    ns3_increase_window_with(cwnd_pkts, ssthresh_pkts, acked_pkts, |cwnd, acked| {
        ns3_congestion_avoidance(cwnd, acked, segment_bytes)
    })
}

/// ns-3.37 `TcpNewReno::IncreaseWindow` with an algorithm's own congestion avoidance
/// (`avoidance(cwnd, segments left)`), as the algorithms built on `TcpNewReno` override it.
pub fn ns3_increase_window_with(
    cwnd_pkts: f64,
    ssthresh_pkts: f64,
    acked_pkts: u32,
    avoidance: impl FnOnce(f64, u32) -> f64,
) -> f64 {
    let (cwnd, acked) = ns3_slow_start(cwnd_pkts, ssthresh_pkts, acked_pkts);
    if cwnd >= ssthresh_pkts {
        avoidance(cwnd, acked)
    } else {
        cwnd
    }
}

/// Growth in whole segments from a counter of weighted segments acknowledged, as ns-3.37's
/// HighSpeed and Illinois count: every ⌊cwnd⌋ in `ack_cnt` (the window reached so far) pays
/// for one segment. Returns cwnd, unchanged when nothing was paid for.
pub fn ns3_pay_from_counter(ack_cnt: &mut u32, cwnd_pkts: f64) -> f64 {
    let old = ns3_whole_segments(cwnd_pkts);
    let mut seg_cwnd = old;
    while *ack_cnt >= seg_cwnd {
        *ack_cnt -= seg_cwnd;
        seg_cwnd += 1;
    }
    if seg_cwnd == old {
        cwnd_pkts
    } else {
        f64::from(seg_cwnd)
    }
}

/// A window this close below a whole number of segments counts as that number (rounding noise
/// of the byte ↔ segment conversions, far below one byte).
const WHOLE_SEGMENT_SLACK_PKTS: f64 = 1e-6;

/// ns-3.37 `GetCwndInSegments`: whole segments in a window, at least one.
pub fn ns3_whole_segments(cwnd_pkts: f64) -> u32 {
    ((cwnd_pkts + WHOLE_SEGMENT_SLACK_PKTS).floor() as u32).max(1)
}

/// A window in whole bytes, as ns-3.37 holds cwnd.
pub fn ns3_whole_bytes(cwnd_pkts: f64, segment_bytes: u32) -> f64 {
    (cwnd_pkts * f64::from(segment_bytes) + WHOLE_SEGMENT_SLACK_PKTS).floor()
}

/// ssthresh after a congestion event: max(FlightSize/2, 2) (RFC 5681 eq. (4); ns-3.37
/// `TcpNewReno::GetSsThresh`).
pub fn ssthresh_after_loss(flight_pkts: u32) -> f64 {
    (f64::from(flight_pkts) / 2.0).max(2.0)
}

/// ssthresh after a congestion event from the window: max(⌊cwnd/2⌋, 2) (ns-2.35's slowdown
/// with precisionReduce_ true: `ssthresh_ = (int) (windowd() / 2)`, at least 2).
fn ssthresh_from_cwnd(cwnd_pkts: f64) -> f64 {
    (cwnd_pkts / 2.0).floor().max(2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_segment_per_window() {
        let mut cwnd = 10.0;
        for _ in 0..10 {
            cwnd = increase_window(cwnd, 5.0, 1);
        }
        assert!((cwnd - 11.0).abs() < 0.05);
        assert_eq!(ssthresh_after_loss(20), 10.0);
        assert_eq!(ssthresh_after_loss(3), 2.0);
        assert_eq!(ssthresh_from_cwnd(9.7), 4.0);
        assert_eq!(ssthresh_from_cwnd(3.9), 2.0);
    }

    #[test]
    fn slow_start_adds_the_segments_acknowledged() {
        assert_eq!(increase_window(10.0, 64.0, 2), 12.0);
        // The ACK that crosses ssthresh is still slow start.
        assert_eq!(increase_window(63.0, 64.0, 2), 65.0);
        assert!((increase_window(64.0, 64.0, 2) - (64.0 + 2.0 / 64.0)).abs() < 1e-12);
    }

    #[test]
    fn ns3_avoidance_adds_whole_bytes_per_ack() {
        // 1448-byte segments, cwnd 10 segments: 1448²/14480 = 144.8 → 144 bytes per ACK.
        let cwnd = ns3_congestion_avoidance(10.0, 2, 1448);
        assert!((cwnd - (10.0 + 144.0 / 1448.0)).abs() < 1e-12);
        assert_eq!(ns3_congestion_avoidance(10.0, 0, 1448), 10.0);
        // Slow start adds one segment; the rest of the ACK goes to avoidance at ssthresh.
        let cwnd = ns3_increase_window(9.0, 10.0, 2, 1448);
        assert!((cwnd - (10.0 + 144.0 / 1448.0)).abs() < 1e-12);
        assert_eq!(ns3_whole_segments(9.999_999_9), 10);
        let mut count = 25;
        assert_eq!(ns3_pay_from_counter(&mut count, 10.5), 12.0);
        assert_eq!(count, 4);
        assert_eq!(ns3_pay_from_counter(&mut count, 10.5), 10.5);
        assert_eq!(ns3_whole_bytes(1.5, 1000), 1500.0);
    }
}
