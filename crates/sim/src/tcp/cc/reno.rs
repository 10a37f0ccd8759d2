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

/// ssthresh after a congestion event: max(FlightSize/2, 2) (RFC 5681 eq. (4)).
fn ssthresh_after_loss(flight_pkts: u32) -> f64 {
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
}
