//! TCP Hybla (Caini and Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks",
//! Int. J. Satellite Commun. Netw. 22(5), 2004) as ns-3.37's `TcpHybla` implements it on top of
//! `TcpNewReno`. With ρ = max(RTT_min / RTT_0, 1) and the reference RTT_0 = 50 ms, a flow grows
//! as a flow of RTT_0 would:
//! - slow start: 2^ρ − 1 segments per ACK of new data, not past ssthresh; the
//!   ACK's other segments go to congestion avoidance once cwnd reaches ssthresh;
//! - congestion avoidance: ρ²/⌊cwnd⌋ segments per segment acknowledged, added in whole segments
//!   once they add up to one;
//! - on congestion: NewReno's ssthresh, max(flight/2, 2) segments.
//!
//! ρ is recomputed, as ns-3.37's `TcpHybla::PktsAcked` does, only when the RTT it is handed
//! equals the socket's lowest (`rtt == tcb->m_minRtt`), from that RTT in whole milliseconds.
//! The RTT is the smoothed RTT: TcpSocketBase passes `m_tcb->m_lastRtt` to PktsAcked, which
//! `EstimateRtt` sets to the estimator's smoothed value (`m_rtt->GetEstimate()`), and
//! `m_tcb->m_minRtt` is the lowest value it took, the handshake's sample included (the
//! SYN-ACK goes through `EstimateRtt` in `DoForwardUp`, with no PktsAcked). A flow whose
//! handshake saw a shorter queue than its data so keeps ρ = 1, NewReno's growth, until its
//! smoothed RTT comes back down to the handshake's. RTT_0 is ns-3.37's default, fixed here (no
//! `[tcp]` key yet). ns-3 adds the slow-start increment in whole bytes; aqmlab's windows are in
//! segments, and the increment is not truncated (less than a byte per ACK).

use super::controller::{AckedInfo, Controller};
use crate::tcp::config::TcpConfig;
use crate::time::s_to_ns;

/// ns-3.37 `TcpHybla::RRTT`: the reference round-trip time RTT_0, milliseconds.
const REFERENCE_RTT_MS: f64 = 50.0;

/// Hybla's state: ρ and the fractional segments owed to cwnd.
#[derive(Clone, Copy, Debug)]
pub struct Hybla {
    rho: f64,
    cwnd_cnt: f64,
}

impl Hybla {
    /// ns-3.37 `TcpHybla::CongestionAvoidance` on `acked` segments.
    fn congestion_avoidance(&mut self, cwnd_pkts: f64, acked: u32) -> f64 {
        let seg_cwnd = f64::from((cwnd_pkts as u32).max(1));
        let increment = self.rho * self.rho / seg_cwnd;
        // One addition per segment, as ns-3.37 sums them (the rounding is part of its result).
        for _ in 0..acked {
            self.cwnd_cnt += increment;
        }
        if self.cwnd_cnt >= 1.0 {
            let whole = self.cwnd_cnt.floor();
            self.cwnd_cnt -= whole;
            return cwnd_pkts + whole;
        }
        cwnd_pkts
    }
}

impl Controller for Hybla {
    fn new(_cfg: &TcpConfig) -> Self {
        Hybla {
            rho: 1.0,
            cwnd_cnt: 0.0,
        }
    }

    /// ns-3.37 `TcpHybla::PktsAcked` and `RecalcParam`: a smoothed RTT equal to the socket's
    /// lowest (m_minRtt) sets ρ = max(⌊RTT_min⌋ ms / RTT_0, 1), the milliseconds truncated
    /// from whole nanoseconds as `Time::GetMilliSeconds` does.
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, _ssthresh: f64) -> Option<f64> {
        if let (Some(rtt_s), Some(min_rtt_s)) = (info.srtt_s, info.min_rtt_s) {
            if rtt_s == min_rtt_s {
                let rtt_ms = (s_to_ns(min_rtt_s) / 1_000_000) as f64;
                self.rho = (rtt_ms / REFERENCE_RTT_MS).max(1.0);
            }
        }
        None
    }

    /// ns-3.37 `TcpNewReno::IncreaseWindow` with Hybla's slow start and avoidance.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        let mut cwnd = cwnd_pkts;
        let mut acked = info.acked_pkts;
        if cwnd < ssthresh_pkts && acked >= 1 {
            cwnd = (cwnd + self.rho.exp2() - 1.0).min(ssthresh_pkts);
            acked -= 1;
        }
        if cwnd >= ssthresh_pkts {
            cwnd = self.congestion_avoidance(cwnd, acked);
        }
        cwnd
    }

    /// ns-3.37 `TcpNewReno::GetSsThresh`: max(flight/2, 2).
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        (f64::from(flight_pkts) / 2.0).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked_pkts: u32, rtt_ms: Option<f64>) -> AckedInfo {
        with_min(acked_pkts, rtt_ms, rtt_ms)
    }

    /// An ACK whose smoothed RTT is `rtt_ms` when the lowest so far is `min_ms`.
    fn with_min(acked_pkts: u32, rtt_ms: Option<f64>, min_ms: Option<f64>) -> AckedInfo {
        AckedInfo {
            srtt_s: rtt_ms.map(|ms| ms * 1e-3),
            min_rtt_s: min_ms.map(|ms| ms * 1e-3),
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    fn hybla() -> Hybla {
        Hybla::new(&TcpConfig::ns3())
    }

    #[test]
    fn rho_follows_the_lowest_rtt_in_whole_milliseconds() {
        let mut h = hybla();
        h.on_pkts_acked(&ack(1, Some(30.0)), 10.0, 64.0);
        assert_eq!(h.rho, 1.0, "below the reference RTT, Hybla is NewReno");
        h.on_pkts_acked(&with_min(1, Some(200.9), Some(30.0)), 10.0, 64.0);
        assert_eq!(h.rho, 1.0, "only the lowest RTT recomputes rho");
        let mut h = hybla();
        h.on_pkts_acked(&with_min(1, Some(200.9), Some(24.0)), 10.0, 64.0);
        assert_eq!(
            h.rho, 1.0,
            "a handshake below the smoothed RTT keeps rho at 1"
        );
        h.on_pkts_acked(&ack(1, Some(200.9)), 10.0, 64.0);
        assert_eq!(h.rho, 4.0);
        h.on_pkts_acked(&with_min(1, None, Some(200.9)), 10.0, 64.0);
        assert_eq!(h.rho, 4.0);
    }

    #[test]
    fn a_long_path_grows_as_a_reference_path_would() {
        // rho = 4 (200 ms): slow start adds 2^4 - 1 = 15 segments per ACK, capped at ssthresh.
        let mut h = hybla();
        h.on_pkts_acked(&ack(1, Some(200.0)), 10.0, 64.0);
        assert_eq!(h.increase_window(&ack(1, None), 10.0, 64.0), 25.0);
        assert_eq!(h.increase_window(&ack(1, None), 60.0, 64.0), 64.0);
        // Avoidance: rho^2 / cwnd = 16/32 segments per segment acknowledged, so 2 ACKs of one
        // segment add one, and 64 segments acknowledged (two windows of ACKs of one) add 32.
        let mut cwnd = 32.0;
        let mut h2 = h;
        h2.cwnd_cnt = 0.0;
        cwnd = h2.increase_window(&ack(1, None), cwnd, 2.0);
        assert_eq!(cwnd, 32.0);
        cwnd = h2.increase_window(&ack(1, None), cwnd, 2.0);
        assert_eq!(cwnd, 33.0);
        // rho = 1: about one segment per window, as NewReno; ten additions of 1/10 sum to just
        // under 1 in double precision, so the segment comes with the eleventh, as in ns-3.37.
        let mut h = hybla();
        let mut cwnd = 10.0;
        for _ in 0..10 {
            cwnd = h.increase_window(&ack(1, None), cwnd, 2.0);
        }
        assert_eq!(cwnd, 10.0);
        assert_eq!(h.increase_window(&ack(1, None), cwnd, 2.0), 11.0);
    }

    #[test]
    fn congestion_halves_the_flight() {
        let mut h = hybla();
        assert_eq!(h.ssthresh_after_congestion(40.0, 30), 15.0);
        assert_eq!(h.ssthresh_after_congestion(3.0, 3), 2.0);
    }
}
