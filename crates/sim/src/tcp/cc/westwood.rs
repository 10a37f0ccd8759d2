//! TCP Westwood+ (Grieco and Mascolo, "Performance evaluation and comparison of Westwood+,
//! New Reno, and Vegas TCP congestion control", ACM CCR 34(2), 2004) as ns-3.37's
//! `TcpWestwood` runs it with ProtocolType WestwoodPlus and its default Tustin filter, on top
//! of `TcpNewReno`:
//! - bandwidth: once per RTT, the bytes acknowledged over that RTT, b_k = acked · MSS / RTT
//!   (in whole bits per second, as ns-3's DataRate), filtered as
//!   B_k = 0.9 B_{k−1} + 0.1 (b_k + b_{k−1})/2 (Tustin's discretisation of the paper's
//!   low-pass filter);
//! - growth: NewReno's;
//! - on congestion: ssthresh = max(B · RTT_min, 2 segments) (paper §2).
//!
//! The sample period starts at the first ACK with an RTT sample after the last estimate, and
//! the estimate falls due one RTT (that sample) later, where ns-3.37 schedules an event; here
//! it is taken when the sender next handles an ACK or a timer at or after that time (a
//! reconstruction: segments acknowledged in between count for the next period, and a
//! congestion event before it uses the earlier estimate, as ns-3 would). RTT_min is the
//! lowest RTT sample of the connection (ns-3's m_minRtt).

use super::controller::{AckedInfo, Controller};
use super::reno::ns3_increase_window;
use crate::tcp::config::TcpConfig;

/// The Tustin filter's weight of the previous estimate (ns-3.37's alpha, 0.9).
const FILTER_ALPHA: f64 = 0.9;

/// Westwood+'s state. Rates in bits per second, whole as ns-3's DataRate.
#[derive(Clone, Copy, Debug)]
pub struct WestwoodPlus {
    current_bw_bps: f64,
    last_sample_bw_bps: f64,
    last_bw_bps: f64,
    acked_segments: u32,
    /// The pending estimate: when it falls due and the RTT it spans, seconds.
    due: Option<(f64, f64)>,
    min_rtt_s: f64,
    segment_bytes: u32,
}

impl WestwoodPlus {
    /// ns-3.37 `TcpWestwood::EstimateBW` for Westwood+ with the Tustin filter.
    fn estimate_bw(&mut self, rtt_s: f64) {
        let bits = f64::from(self.acked_segments) * f64::from(self.segment_bytes) * 8.0;
        let sample_bps = (bits / rtt_s).floor();
        self.acked_segments = 0;
        self.current_bw_bps = (self.last_bw_bps * FILTER_ALPHA).floor()
            + (((sample_bps + self.last_sample_bw_bps) * 0.5).floor() * (1.0 - FILTER_ALPHA))
                .floor();
        self.last_sample_bw_bps = sample_bps;
        self.last_bw_bps = self.current_bw_bps;
    }
}

impl Controller for WestwoodPlus {
    fn new(cfg: &TcpConfig) -> Self {
        WestwoodPlus {
            current_bw_bps: 0.0,
            last_sample_bw_bps: 0.0,
            last_bw_bps: 0.0,
            acked_segments: 0,
            due: None,
            min_rtt_s: f64::INFINITY,
            segment_bytes: cfg.payload_bytes(),
        }
    }

    /// ns-3.37 `TcpWestwood::PktsAcked`: count the segments; start a sample period if none
    /// runs. The RTT is the smoothed one, as ns-3.37 hands `PktsAcked` its `m_lastRtt`
    /// (`RttEstimator::GetEstimate`), and RTT_min the lowest of those (`m_minRtt`).
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, _ssthresh: f64) -> Option<f64> {
        let rtt_s = info.srtt_s?;
        self.min_rtt_s = self.min_rtt_s.min(rtt_s);
        self.acked_segments += info.acked_pkts;
        if self.due.is_none() {
            self.due = Some((info.now_s + rtt_s, rtt_s));
        }
        None
    }

    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        ns3_increase_window(
            cwnd_pkts,
            ssthresh_pkts,
            info.acked_pkts,
            self.segment_bytes,
        )
    }

    /// ns-3.37 `TcpWestwood::GetSsThresh`: B · RTT_min in whole bytes, at least 2 segments.
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, _flight_pkts: u32) -> f64 {
        let mss = f64::from(self.segment_bytes);
        let bytes = if self.min_rtt_s.is_finite() {
            (self.current_bw_bps * self.min_rtt_s / 8.0).floor()
        } else {
            0.0
        };
        (bytes / mss).max(2.0)
    }

    /// The estimate falls due (ns-3.37's scheduled EstimateBW).
    fn at_time(&mut self, now_s: f64) {
        if let Some((due_s, rtt_s)) = self.due {
            if now_s >= due_s {
                self.due = None;
                self.estimate_bw(rtt_s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: f64 = 948.0;

    fn westwood() -> WestwoodPlus {
        WestwoodPlus::new(&TcpConfig::ns3())
    }

    fn ack(now_s: f64, acked_pkts: u32, rtt_ms: Option<f64>) -> AckedInfo {
        AckedInfo {
            now_s,
            srtt_s: rtt_ms.map(|ms| ms * 1e-3),
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    #[test]
    fn one_estimate_per_rtt_through_the_tustin_filter() {
        let mut w = westwood();
        w.at_time(1.0);
        w.on_pkts_acked(&ack(1.0, 2, Some(100.0)), 10.0, 5.0);
        assert_eq!(w.due, Some((1.1, 0.1)));
        w.at_time(1.05);
        w.on_pkts_acked(&ack(1.05, 8, Some(100.0)), 10.0, 5.0);
        w.on_pkts_acked(&ack(1.06, 5, None), 10.0, 5.0);
        assert_eq!(
            w.acked_segments, 10,
            "an ACK before any RTT estimate is not counted"
        );
        w.at_time(1.1);
        // b = 10 · 948 · 8 / 0.1 = 758 400 bit/s; B = 0.9 · 0 + 0.1 · (b + 0)/2.
        let b = (10.0 * MSS * 8.0 / 0.1_f64).floor();
        assert_eq!(
            w.current_bw_bps,
            ((b * 0.5).floor() * (1.0 - FILTER_ALPHA)).floor()
        );
        assert_eq!((w.acked_segments, w.due), (0, None));
        // The next period: same b, B = ⌊0.9 B⌋ + ⌊0.1 · b⌋.
        let first = w.current_bw_bps;
        w.on_pkts_acked(&ack(1.2, 10, Some(100.0)), 10.0, 5.0);
        w.at_time(1.3);
        let expected = (first * 0.9).floor() + (b * (1.0 - FILTER_ALPHA)).floor();
        assert_eq!(w.current_bw_bps, expected);
    }

    #[test]
    fn ssthresh_is_the_bandwidth_delay_product() {
        let mut w = westwood();
        assert_eq!(w.ssthresh_after_congestion(10.0, 10), 2.0);
        w.min_rtt_s = 0.05;
        w.current_bw_bps = 10e6;
        // 10 Mbit/s · 50 ms = 62 500 bytes.
        assert_eq!(w.ssthresh_after_congestion(100.0, 100), 62_500.0 / MSS);
        w.current_bw_bps = 1e5;
        assert_eq!(w.ssthresh_after_congestion(100.0, 100), 2.0);
    }

    #[test]
    fn growth_is_newreno() {
        let mut w = westwood();
        assert_eq!(w.increase_window(&ack(0.0, 2, None), 10.0, 64.0), 11.0);
    }
}
