//! HighSpeed TCP (RFC 3649) as ns-3.37's `TcpHighSpeed` implements it on top of `TcpNewReno`:
//! - slow start as ns-3's NewReno: one segment per ACK of new data, the ACK's other segments
//!   spent on congestion avoidance once cwnd reaches ssthresh;
//! - congestion avoidance: w += a(w)/w per segment acknowledged (RFC 3649 §5), counted as
//!   ns-3 does: each segment acknowledged adds a(w) to a counter, and every w in the counter
//!   is one whole segment of cwnd;
//! - on congestion: ssthresh = max(2, ⌊(1 − b(w)) · w⌋) segments with w the flight
//!   (RFC 3649 §5, w ← (1 − b(w))·w).
//!
//! a(w) and b(w) come from the table of RFC 3649 Appendix B (Low_Window 38, High_Window
//! 83000, High_P 10⁻⁷, High_Decrease 0.1), which ns-3.37 looks up by whole segments; above
//! its last row a = 73 and b = 0.09.

use super::controller::{AckedInfo, Controller};
use super::reno::{ns3_increase_window_with, ns3_pay_from_counter, ns3_whole_segments};
use crate::tcp::config::TcpConfig;

/// RFC 3649 Appendix B: (largest window of the row, segments; a(w); b(w)).
const TABLE: [(u32, u32, f64); 73] = [
    (38, 1, 0.50),
    (118, 2, 0.44),
    (221, 3, 0.41),
    (347, 4, 0.38),
    (495, 5, 0.37),
    (663, 6, 0.35),
    (851, 7, 0.34),
    (1058, 8, 0.33),
    (1284, 9, 0.32),
    (1529, 10, 0.31),
    (1793, 11, 0.30),
    (2076, 12, 0.29),
    (2378, 13, 0.28),
    (2699, 14, 0.28),
    (3039, 15, 0.27),
    (3399, 16, 0.27),
    (3778, 17, 0.26),
    (4177, 18, 0.26),
    (4596, 19, 0.25),
    (5036, 20, 0.25),
    (5497, 21, 0.24),
    (5979, 22, 0.24),
    (6483, 23, 0.23),
    (7009, 24, 0.23),
    (7558, 25, 0.22),
    (8130, 26, 0.22),
    (8726, 27, 0.22),
    (9346, 28, 0.21),
    (9991, 29, 0.21),
    (10661, 30, 0.21),
    (11358, 31, 0.20),
    (12082, 32, 0.20),
    (12834, 33, 0.20),
    (13614, 34, 0.19),
    (14424, 35, 0.19),
    (15265, 36, 0.19),
    (16137, 37, 0.19),
    (17042, 38, 0.18),
    (17981, 39, 0.18),
    (18955, 40, 0.18),
    (19965, 41, 0.17),
    (21013, 42, 0.17),
    (22101, 43, 0.17),
    (23230, 44, 0.17),
    (24402, 45, 0.16),
    (25618, 46, 0.16),
    (26881, 47, 0.16),
    (28193, 48, 0.16),
    (29557, 49, 0.15),
    (30975, 50, 0.15),
    (32450, 51, 0.15),
    (33986, 52, 0.15),
    (35586, 53, 0.14),
    (37253, 54, 0.14),
    (38992, 55, 0.14),
    (40808, 56, 0.14),
    (42707, 57, 0.13),
    (44694, 58, 0.13),
    (46776, 59, 0.13),
    (48961, 60, 0.13),
    (51258, 61, 0.13),
    (53667, 62, 0.12),
    (56230, 63, 0.12),
    (58932, 64, 0.12),
    (61799, 65, 0.12),
    (64851, 66, 0.11),
    (68113, 67, 0.11),
    (71617, 68, 0.11),
    (75401, 69, 0.10),
    (79517, 70, 0.10),
    (84035, 71, 0.10),
    (89053, 72, 0.10),
    (94717, 73, 0.09),
];

/// a(w) and b(w) for a window of `w_pkts` whole segments (RFC 3649 Appendix B).
fn table_row(w_pkts: u32) -> (u32, f64) {
    TABLE
        .iter()
        .find(|(w_max, _, _)| w_pkts <= *w_max)
        .map_or((73, 0.09), |&(_, a, b)| (a, b))
}

/// HighSpeed's state: a(w)-weighted segments acknowledged since the last increase.
#[derive(Clone, Copy, Debug, Default)]
pub struct HighSpeed {
    ack_cnt: u32,
}

impl HighSpeed {
    /// ns-3.37 `TcpHighSpeed::CongestionAvoidance` on `acked` segments: w += a(w)/w per
    /// segment (RFC 3649 §5), in whole segments.
    fn congestion_avoidance(&mut self, cwnd_pkts: f64, acked: u32) -> f64 {
        if acked > 0 {
            self.ack_cnt += acked * table_row(ns3_whole_segments(cwnd_pkts)).0;
        }
        ns3_pay_from_counter(&mut self.ack_cnt, cwnd_pkts)
    }
}

impl Controller for HighSpeed {
    fn new(_cfg: &TcpConfig) -> Self {
        HighSpeed::default()
    }

    /// ns-3.37 `TcpNewReno::IncreaseWindow` with HighSpeed's congestion avoidance.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        ns3_increase_window_with(cwnd_pkts, ssthresh_pkts, info.acked_pkts, |cwnd, acked| {
            self.congestion_avoidance(cwnd, acked)
        })
    }

    /// ns-3.37 `TcpHighSpeed::GetSsThresh`: max(2, ⌊(1 − b(w)) · w⌋), w the flight in
    /// segments (RFC 3649 §5).
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        let b = table_row(flight_pkts).1;
        (f64::from(flight_pkts) * (1.0 - b)).max(2.0).floor()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked_pkts: u32) -> AckedInfo {
        AckedInfo::of_segments(acked_pkts)
    }

    #[test]
    fn the_table_follows_rfc_3649() {
        assert_eq!(table_row(1), (1, 0.50));
        assert_eq!(table_row(38), (1, 0.50));
        assert_eq!(table_row(39), (2, 0.44));
        assert_eq!(table_row(1058), (8, 0.33));
        assert_eq!(table_row(94717), (73, 0.09));
        assert_eq!(table_row(200_000), (73, 0.09));
        // The table is ordered by window.
        assert!(TABLE.windows(2).all(|r| r[0].0 < r[1].0 && r[0].1 < r[1].1));
    }

    #[test]
    fn avoidance_adds_a_of_w_segments_per_window() {
        // At or below 38 segments HighSpeed is NewReno: one segment per window.
        let mut h = HighSpeed::default();
        let mut cwnd = 20.0;
        for _ in 0..19 {
            cwnd = h.increase_window(&ack(1), cwnd, 2.0);
        }
        assert_eq!(cwnd, 20.0);
        assert_eq!(h.increase_window(&ack(1), cwnd, 2.0), 21.0);
        // At 100 segments a(w) = 2: 50 ACKs of one segment add one segment.
        let mut h = HighSpeed::default();
        let mut cwnd = 100.0;
        for _ in 0..50 {
            cwnd = h.increase_window(&ack(1), cwnd, 2.0);
        }
        assert_eq!(cwnd, 101.0);
        // At 1000 segments a(w) = 8: an ACK of 250 segments counts 2000, which pays for one
        // segment at 1000 and leaves 1000, short of the 1001 the next one costs.
        let mut h = HighSpeed::default();
        assert_eq!(h.increase_window(&ack(250), 1000.0, 2.0), 1001.0);
        assert_eq!(h.ack_cnt, 1000);
    }

    #[test]
    fn slow_start_is_newreno() {
        let mut h = HighSpeed::default();
        assert_eq!(h.increase_window(&ack(2), 10.0, 64.0), 11.0);
    }

    #[test]
    fn congestion_keeps_one_minus_b_of_the_flight() {
        let mut h = HighSpeed::default();
        assert_eq!(h.ssthresh_after_congestion(30.0, 30), 15.0);
        // 100 segments: b = 0.44, ⌊56⌋.
        assert_eq!(h.ssthresh_after_congestion(100.0, 100), 56.0);
        // 1000 segments: b = 0.33; (1 − 0.33) · 1000 is 669.99… in double precision, which
        // ns-3.37 truncates to 669 too.
        assert_eq!(h.ssthresh_after_congestion(1000.0, 1000), 669.0);
        assert_eq!(h.ssthresh_after_congestion(3.0, 3), 2.0);
    }
}
