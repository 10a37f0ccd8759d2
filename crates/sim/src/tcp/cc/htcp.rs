//! H-TCP (Leith and Shorten, "H-TCP: TCP for high-speed and long-distance networks", PFLDnet
//! 2004; RFC-style draft-leith-tcp-htcp-06) as ns-3.37's `TcpHtcp` implements it on top of
//! `TcpNewReno`. With Δ the time since the last congestion event and Δ_L = 1 s:
//! - α = 1 for Δ ≤ Δ_L, else 1 + 10(Δ − Δ_L) + ¼(Δ − Δ_L)² (Leith and Shorten eq. (3)),
//!   then α ← max(2(1 − β)α, 1) (eq. (4));
//! - β = minRTT/maxRTT of the last congestion period (adaptive backoff), or 0.5 when the
//!   throughput changed by more than 20 % between the last two periods;
//! - congestion avoidance: each ACK of new data adds ⌊max(1, (SMSS² + cwnd·α)/cwnd)⌋ bytes, as
//!   ns-3.37 computes it (SMSS²/cwnd bytes is NewReno's step; α adds α *bytes* per ACK there,
//!   where the paper adds α segments per RTT);
//! - on congestion: ssthresh = max(β · flight, 2 segments), and a new period starts.
//!
//! The throughput test reproduces ns-3.37's integer arithmetic: (throughput − last) / last
//! is an integer division of bytes per second, so β is adaptive whenever throughput grew by
//! less than 100 %, and 0.5 otherwise (or when it fell). Throughput is the bytes acknowledged
//! in Open since the period began over its duration; on the ACK where the period has just
//! begun ns-3.37 divides by zero, taken as 0 here. The state Open is what the sender last
//! reported (CWR is not reported, as in ns-3.37's CongestionStateSet), a reconstruction of
//! ns-3's test of m_congState. RTT extremes are those of the smoothed RTT on every call (ns-3.37
//! passes `m_tcb->m_lastRtt`, which `EstimateRtt` sets to the estimator's smoothed value, not
//! the raw sample, and keeps on ACKs without a sample), so β is the ratio of the lowest to the
//! highest smoothed RTT of the period. DefaultBackoff 0.5, ThroughputRatio 0.2 and DeltaL
//! 1 s are ns-3.37's defaults.

use super::controller::{AckedInfo, CongState, Controller};
use super::reno::{ns3_increase_window_with, ns3_whole_bytes};
use super::rtt_round::NS3_TIME_MAX_S;
use crate::tcp::config::TcpConfig;

/// ns-3.37 `TcpHtcp::DefaultBackoff`: β when throughput changed too much.
const DEFAULT_BACKOFF: f64 = 0.5;
/// ns-3.37 `TcpHtcp::ThroughputRatio`: the largest relative throughput change for the
/// adaptive β.
const THROUGHPUT_RATIO: f64 = 0.2;
/// ns-3.37 `TcpHtcp::DeltaL`: the low-speed period after a congestion event, seconds.
const DELTA_L_S: f64 = 1.0;

/// H-TCP's state.
#[derive(Clone, Copy, Debug)]
pub struct Htcp {
    alpha: f64,
    beta: f64,
    /// Time of the last congestion event, seconds.
    last_con_s: f64,
    min_rtt_s: f64,
    max_rtt_s: f64,
    /// Throughput of this period so far and of the last one, bytes per second.
    throughput_bps: u32,
    last_throughput_bps: u32,
    /// Bytes acknowledged in Open this period.
    data_sent_bytes: u32,
    open: bool,
    now_s: f64,
    segment_bytes: u32,
}

impl Htcp {
    /// α from the time since the last congestion event (Leith and Shorten eqs. (3)–(4)).
    fn update_alpha(&mut self) {
        let delta_s = self.now_s - self.last_con_s;
        let alpha = if delta_s <= DELTA_L_S {
            1.0
        } else {
            let d = delta_s - DELTA_L_S;
            1.0 + 10.0 * d + 0.25 * d * d
        };
        self.alpha = (2.0 * (1.0 - self.beta) * alpha).max(1.0);
    }

    /// β = minRTT/maxRTT unless throughput changed too much (ns-3.37 `UpdateBeta`).
    fn update_beta(&mut self) {
        self.beta = DEFAULT_BACKOFF;
        if self.throughput_bps > self.last_throughput_bps && self.last_throughput_bps > 0 {
            let diff = self.throughput_bps - self.last_throughput_bps;
            if f64::from(diff / self.last_throughput_bps) <= THROUGHPUT_RATIO {
                self.beta = self.min_rtt_s / self.max_rtt_s;
            }
        }
    }

    /// ns-3.37 `TcpHtcp::CongestionAvoidance`: ⌊max(1, (SMSS² + cwnd·α)/cwnd)⌋ bytes per ACK.
    fn congestion_avoidance(&self, cwnd_pkts: f64, acked: u32) -> f64 {
        if acked == 0 {
            return cwnd_pkts;
        }
        let mss = f64::from(self.segment_bytes);
        let cwnd_bytes = ns3_whole_bytes(cwnd_pkts, self.segment_bytes);
        let adder_bytes = ((mss * mss + cwnd_bytes * self.alpha) / cwnd_bytes)
            .max(1.0)
            .floor();
        cwnd_pkts + adder_bytes / mss
    }
}

impl Controller for Htcp {
    fn new(cfg: &TcpConfig) -> Self {
        Htcp {
            alpha: 0.0,
            beta: 0.0,
            last_con_s: 0.0,
            min_rtt_s: NS3_TIME_MAX_S,
            max_rtt_s: -NS3_TIME_MAX_S,
            throughput_bps: 0,
            last_throughput_bps: 0,
            data_sent_bytes: 0,
            open: true,
            now_s: 0.0,
            segment_bytes: cfg.payload_bytes(),
        }
    }

    /// ns-3.37 `TcpHtcp::PktsAcked`: the period's throughput, α, and the RTT extremes.
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, _ssthresh: f64) -> Option<f64> {
        self.now_s = info.now_s;
        if self.open {
            self.data_sent_bytes += info.acked_pkts * self.segment_bytes;
        }
        let elapsed_s = self.now_s - self.last_con_s;
        self.throughput_bps = if elapsed_s > 0.0 {
            (f64::from(self.data_sent_bytes) / elapsed_s) as u32
        } else {
            0
        };
        self.update_alpha();
        if let Some(rtt_s) = info.srtt_s {
            self.min_rtt_s = self.min_rtt_s.min(rtt_s);
            self.max_rtt_s = self.max_rtt_s.max(rtt_s);
        }
        None
    }

    /// ns-3.37 `TcpNewReno::IncreaseWindow` with H-TCP's congestion avoidance.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        ns3_increase_window_with(cwnd_pkts, ssthresh_pkts, info.acked_pkts, |cwnd, acked| {
            self.congestion_avoidance(cwnd, acked)
        })
    }

    /// ns-3.37 `TcpHtcp::GetSsThresh`: a new period with β · flight (at least 2 segments).
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        self.last_con_s = self.now_s;
        self.update_beta();
        self.update_alpha();
        let mss = f64::from(self.segment_bytes);
        let kept_bytes = (f64::from(flight_pkts) * mss * self.beta).floor();
        self.min_rtt_s = NS3_TIME_MAX_S;
        self.max_rtt_s = -NS3_TIME_MAX_S;
        self.last_throughput_bps = self.throughput_bps;
        self.throughput_bps = 0;
        self.data_sent_bytes = 0;
        (kept_bytes / mss).max(2.0)
    }

    fn at_time(&mut self, now_s: f64) {
        self.now_s = now_s;
    }

    fn on_state_change(&mut self, state: CongState, _snd_max: u32) {
        self.open = state == CongState::Open;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn htcp() -> Htcp {
        Htcp::new(&TcpConfig::ns3())
    }

    fn ack(now_s: f64, acked_pkts: u32, rtt_ms: f64) -> AckedInfo {
        AckedInfo {
            now_s,
            srtt_s: Some(rtt_ms * 1e-3),
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    #[test]
    fn alpha_grows_with_the_time_since_congestion() {
        let mut h = htcp();
        h.beta = 0.5;
        h.now_s = 0.5;
        h.update_alpha();
        assert_eq!(h.alpha, 1.0, "2(1 − 0.5) · 1");
        h.now_s = 3.0;
        h.update_alpha();
        // Δ − Δ_L = 2 s: 1 + 20 + 1 = 22, times 2(1 − 0.5).
        assert_eq!(h.alpha, 22.0);
        h.beta = 0.8;
        h.update_alpha();
        assert!((h.alpha - 22.0 * 0.4).abs() < 1e-12);
    }

    #[test]
    fn beta_is_adaptive_unless_throughput_doubled() {
        let mut h = htcp();
        h.min_rtt_s = 0.1;
        h.max_rtt_s = 0.125;
        h.last_throughput_bps = 1000;
        h.throughput_bps = 1500;
        h.update_beta();
        assert_eq!(h.beta, 0.8);
        h.throughput_bps = 2000;
        h.update_beta();
        assert_eq!(h.beta, DEFAULT_BACKOFF);
        h.throughput_bps = 900;
        h.update_beta();
        assert_eq!(h.beta, DEFAULT_BACKOFF);
    }

    #[test]
    fn a_congestion_event_keeps_beta_of_the_flight_and_starts_a_period() {
        let mut h = htcp();
        h.on_state_change(CongState::Open, 0);
        h.on_pkts_acked(&ack(1.0, 10, 100.0), 10.0, 5.0);
        h.on_pkts_acked(&ack(2.0, 10, 125.0), 10.0, 5.0);
        assert_eq!(h.throughput_bps, 20 * 948 / 2);
        h.at_time(2.0);
        // No earlier period: β = 0.5.
        assert_eq!(h.ssthresh_after_congestion(40.0, 40), 20.0);
        assert_eq!((h.last_con_s, h.data_sent_bytes), (2.0, 0));
        assert_eq!(h.last_throughput_bps, 9480);
        // Second period, throughput up 50 %: β = 100/125.
        h.on_pkts_acked(&ack(3.0, 15, 100.0), 10.0, 5.0);
        h.on_pkts_acked(&ack(4.0, 15, 125.0), 10.0, 5.0);
        h.at_time(4.0);
        let kept = (40.0 * 948.0 * 0.8_f64).floor() / 948.0;
        assert_eq!(h.ssthresh_after_congestion(40.0, 40), kept);
        assert_eq!(h.ssthresh_after_congestion(3.0, 1), 2.0);
    }

    #[test]
    fn data_outside_open_does_not_count() {
        let mut h = htcp();
        h.on_state_change(CongState::Recovery, 0);
        h.on_pkts_acked(&ack(1.0, 10, 100.0), 10.0, 5.0);
        assert_eq!(h.data_sent_bytes, 0);
    }

    #[test]
    fn avoidance_adds_whole_bytes_with_alpha() {
        let mut h = htcp();
        h.alpha = 22.0;
        // cwnd 10 segments of 948 bytes: 94.8 + 22 = 116.8 → 116 bytes.
        let cwnd = h.increase_window(&ack(0.0, 1, 100.0), 10.0, 5.0);
        assert!((cwnd - (10.0 + 116.0 / 948.0)).abs() < 1e-12);
        assert_eq!(h.increase_window(&ack(0.0, 1, 100.0), 4.0, 5.0), 5.0);
    }
}
