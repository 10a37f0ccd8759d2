//! Reno as Linux counts it (`tcp_reno_cong_avoid`, `tcp_cong_avoid_ai`), in ns-3.37's
//! `TcpLinuxReno`:
//! - slow start: cwnd grows by the segments acknowledged but not past ssthresh, and what is
//!   left of the ACK is not spent on congestion avoidance (Linux's `tcp_slow_start` with the
//!   ACK's remainder dropped, as ns-3.37 drops it);
//! - congestion avoidance: a counter of segments acknowledged gives one segment each time it
//!   reaches w = ⌊cwnd⌋ (at least 1), keeping the remainder (`snd_cwnd_cnt`);
//! - on congestion: ssthresh = max(cwnd/2, 2) segments, from cwnd, not from the flight size.
//!
//! Unlike `reno`, which follows RFC 5681 (or ns-2), this is the window arithmetic that Linux
//! and ns-3's `TcpLinuxReno` use, to compare with either.

use super::controller::{AckedInfo, Controller};
use crate::tcp::config::TcpConfig;

/// Linux Reno's state: segments acknowledged towards the next increase (`snd_cwnd_cnt`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxReno {
    cwnd_cnt: u32,
}

impl LinuxReno {
    /// ns-3.37 `TcpLinuxReno::CongestionAvoidance` on `acked` segments.
    fn congestion_avoidance(&mut self, cwnd_pkts: f64, acked: u32) -> f64 {
        let w = (cwnd_pkts as u32).max(1);
        let mut cwnd = cwnd_pkts;
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            cwnd += 1.0;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            cwnd += f64::from(delta);
        }
        cwnd
    }
}

impl Controller for LinuxReno {
    fn new(_cfg: &TcpConfig) -> Self {
        LinuxReno::default()
    }

    /// ns-3.37 `TcpLinuxReno::IncreaseWindow`: slow start below ssthresh (capped at it),
    /// congestion avoidance otherwise.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        if cwnd_pkts < ssthresh_pkts {
            if info.acked_pkts == 0 {
                return cwnd_pkts;
            }
            return (cwnd_pkts + f64::from(info.acked_pkts)).min(ssthresh_pkts);
        }
        self.congestion_avoidance(cwnd_pkts, info.acked_pkts)
    }

    /// ns-3.37 `TcpLinuxReno::GetSsThresh` (Linux `tcp_reno_ssthresh`): max(cwnd/2, 2).
    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, _flight_pkts: u32) -> f64 {
        (cwnd_pkts / 2.0).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked_pkts: u32) -> AckedInfo {
        AckedInfo::of_segments(acked_pkts)
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_drops_the_rest_of_the_ack() {
        let mut r = LinuxReno::default();
        assert_eq!(r.increase_window(&ack(2), 10.0, 64.0), 12.0);
        assert_eq!(r.increase_window(&ack(2), 63.0, 64.0), 64.0);
        assert_eq!(r.cwnd_cnt, 0, "the ACK's remainder is not counted");
    }

    #[test]
    fn avoidance_adds_a_segment_per_window_and_keeps_the_remainder() {
        let mut r = LinuxReno::default();
        let mut cwnd = 10.0;
        // Delayed ACKs: 2 segments each; after 5 ACKs the count reaches 10 = w.
        for _ in 0..5 {
            cwnd = r.increase_window(&ack(2), cwnd, 2.0);
        }
        assert_eq!((cwnd, r.cwnd_cnt), (11.0, 0));
        // w = 11: 6 ACKs of 2 make 12, one segment and 1 left over.
        for _ in 0..6 {
            cwnd = r.increase_window(&ack(2), cwnd, 2.0);
        }
        assert_eq!((cwnd, r.cwnd_cnt), (12.0, 1));
        // A stretch ACK of 30 at w = 12: two segments, 7 left.
        assert_eq!(r.increase_window(&ack(30), 12.0, 2.0), 14.0);
        assert_eq!(r.cwnd_cnt, 7);
    }

    #[test]
    fn congestion_halves_cwnd_not_the_flight() {
        let mut r = LinuxReno::default();
        assert_eq!(r.ssthresh_after_congestion(41.0, 10), 20.5);
        assert_eq!(r.ssthresh_after_congestion(3.0, 3), 2.0);
    }
}
