//! TCP-Illinois (Liu, Başar and Srikant, "TCP-Illinois: a loss- and delay-based congestion
//! control algorithm for high-speed networks", Performance Evaluation 65(6–7), 2008) as
//! ns-3.37's `TcpIllinois` implements it on top of `TcpNewReno`. Once per round, from the
//! average queueing delay d_a and the largest d_m (smoothed RTT less the lowest smoothed RTT,
//! whole ms; see `on_pkts_acked`):
//! - α = α_max while d_a ≤ d_1 = d_m/100 (after θ rounds there, or until d_a first exceeds
//!   d_1), else α = k₁/(k₂ + d_a) (paper eq. (2)), between α_min and α_max;
//! - β = β_min for d_a ≤ d_2 = d_m/10, β_max for d_a ≥ d_3 = 8d_m/10, linear between
//!   (paper eq. (3));
//! - congestion avoidance: α/w segments per segment acknowledged, in whole segments;
//!   slow start: NewReno's (one segment per ACK, nothing spent on avoidance);
//! - on congestion: ssthresh = max(2, ⌊(1 − β) · flight⌋) segments.
//!
//! A timeout (ns-3's CA_LOSS) resets α and β to their base values and starts a new round.
//! As in ns-3.37, α starts at α_max, and the window threshold (w < 15 → base α and β) is
//! compared with cwnd in bytes, so it never applies. Attribute defaults of ns-3.37: α_min 0.3,
//! α_max 10, α_base 1, β_min 0.125, β_max 0.5, β_base 0.5, WinThresh 15, Theta 5.

use super::controller::{AckedInfo, CongState, Controller};
use super::reno::{ns3_pay_from_counter, ns3_slow_start, ns3_whole_bytes};
use crate::tcp::config::TcpConfig;
use crate::time::s_to_ns;

/// ns-3.37 `TcpIllinois::AlphaMin`, segments per RTT.
const ALPHA_MIN: f64 = 0.3;
/// ns-3.37 `TcpIllinois::AlphaMax`, segments per RTT.
const ALPHA_MAX: f64 = 10.0;
/// ns-3.37 `TcpIllinois::AlphaBase`, segments per RTT.
const ALPHA_BASE: f64 = 1.0;
/// ns-3.37 `TcpIllinois::BetaMin`.
const BETA_MIN: f64 = 0.125;
/// ns-3.37 `TcpIllinois::BetaMax`.
const BETA_MAX: f64 = 0.5;
/// ns-3.37 `TcpIllinois::BetaBase`.
const BETA_BASE: f64 = 0.5;
/// ns-3.37 `TcpIllinois::WinThresh`, compared (as ns-3.37 does) with cwnd in bytes.
const WIN_THRESH_BYTES: f64 = 15.0;
/// ns-3.37 `TcpIllinois::Theta`: rounds of low delay before α returns to α_max.
const THETA_ROUNDS: u32 = 5;

/// Illinois's state. RTTs in whole nanoseconds, as ns-3's Time.
#[derive(Clone, Copy, Debug)]
pub struct Illinois {
    sum_rtt_ns: u64,
    cnt_rtt: u32,
    base_rtt_ns: u64,
    max_rtt_ns: u64,
    /// The round ends when this segment is acknowledged.
    end_seq: u32,
    rtt_above: bool,
    rtt_low: u32,
    alpha: f64,
    beta: f64,
    ack_cnt: u32,
    segment_bytes: u32,
}

impl Illinois {
    /// A new round ending at `snd_max` (ns-3.37 `Reset`).
    fn reset(&mut self, snd_max: u32) {
        self.end_seq = snd_max;
        self.cnt_rtt = 0;
        self.sum_rtt_ns = 0;
    }

    /// ns-3.37 `RecalcParam`: α and β from the delays of the round that ended.
    fn recalc(&mut self, cwnd_pkts: f64) {
        if ns3_whole_bytes(cwnd_pkts, self.segment_bytes) < WIN_THRESH_BYTES {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let ms = |ns: u64| (ns / 1_000_000) as f64;
            let dm = ms(self.max_rtt_ns - self.base_rtt_ns);
            let avg_ns = self.sum_rtt_ns / u64::from(self.cnt_rtt);
            let da = ms(avg_ns.saturating_sub(self.base_rtt_ns));
            self.update_alpha(da, dm);
            self.update_beta(da, dm);
        }
    }

    /// α (paper eq. (2)): α_max in low delay, else k₁/(k₂ + d_a), written as ns-3.37 does with
    /// the delays less d_1.
    fn update_alpha(&mut self, da_ms: f64, dm_ms: f64) {
        let d1 = dm_ms / 100.0;
        if da_ms <= d1 {
            if !self.rtt_above {
                self.alpha = ALPHA_MAX;
            }
            self.rtt_low += 1;
            if self.rtt_low >= THETA_ROUNDS {
                self.rtt_low = 0;
                self.rtt_above = false;
                self.alpha = ALPHA_MAX;
            }
        } else {
            self.rtt_above = true;
            let dm = dm_ms - d1;
            let da = da_ms - d1;
            self.alpha = (dm * ALPHA_MAX) / (dm + (da * (ALPHA_MAX - ALPHA_MIN)) / ALPHA_MIN);
        }
    }

    /// β (paper eq. (3)): β_min up to d_2, β_max from d_3, linear between.
    fn update_beta(&mut self, da_ms: f64, dm_ms: f64) {
        let d2 = dm_ms / 10.0;
        let d3 = (8.0 * dm_ms) / 10.0;
        if da_ms <= d2 {
            self.beta = BETA_MIN;
        } else if da_ms < d3 {
            self.beta = (BETA_MIN * d3 - BETA_MAX * d2 + (BETA_MAX - BETA_MIN) * da_ms) / (d3 - d2);
        } else {
            self.beta = BETA_MAX;
        }
    }
}

impl Controller for Illinois {
    fn new(cfg: &TcpConfig) -> Self {
        Illinois {
            sum_rtt_ns: 0,
            cnt_rtt: 0,
            base_rtt_ns: u64::MAX,
            max_rtt_ns: 0,
            end_seq: 0,
            rtt_above: false,
            rtt_low: 0,
            alpha: ALPHA_MAX,
            beta: BETA_BASE,
            ack_cnt: 0,
            segment_bytes: cfg.payload_bytes(),
        }
    }

    /// ns-3.37 `TcpIllinois::PktsAcked`: the lowest, largest and summed RTTs. The RTT is the
    /// smoothed RTT, on every call once there is one: ns-3.37's TcpSocketBase passes
    /// `m_tcb->m_lastRtt`, which `EstimateRtt` sets to the estimator's smoothed value
    /// (`m_rtt->GetEstimate()`), not the raw sample, and which keeps its value on ACKs
    /// without a sample (duplicate ACKs, Karn's rule).
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, _ssthresh: f64) -> Option<f64> {
        if let Some(rtt_s) = info.srtt_s {
            let rtt_ns = s_to_ns(rtt_s);
            self.base_rtt_ns = self.base_rtt_ns.min(rtt_ns);
            self.max_rtt_ns = self.max_rtt_ns.max(rtt_ns);
            self.cnt_rtt += 1;
            self.sum_rtt_ns += rtt_ns;
        }
        None
    }

    /// ns-3.37 `TcpIllinois::IncreaseWindow`: α/w per segment acknowledged in congestion
    /// avoidance (the paper's w ← w + α/w), the counter truncated to whole segments.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        if info.snd_una >= self.end_seq {
            self.recalc(cwnd_pkts);
            self.reset(info.snd_max);
        }
        if cwnd_pkts < ssthresh_pkts {
            return ns3_slow_start(cwnd_pkts, ssthresh_pkts, info.acked_pkts).0;
        }
        if info.acked_pkts > 0 {
            self.ack_cnt =
                (f64::from(self.ack_cnt) + f64::from(info.acked_pkts) * self.alpha) as u32;
        }
        ns3_pay_from_counter(&mut self.ack_cnt, cwnd_pkts)
    }

    /// ns-3.37 `TcpIllinois::GetSsThresh`: max(2, ⌊(1 − β) · flight⌋).
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        ((1.0 - self.beta) * f64::from(flight_pkts))
            .max(2.0)
            .floor()
    }

    /// ns-3.37 `TcpIllinois::CongestionStateSet`: a timeout resets α, β and the round.
    fn on_state_change(&mut self, state: CongState, snd_max: u32) {
        if state == CongState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.reset(snd_max);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn illinois() -> Illinois {
        Illinois::new(&TcpConfig::ns3())
    }

    fn ack(snd_una: u32, snd_max: u32, acked_pkts: u32, rtt_ms: Option<f64>) -> AckedInfo {
        AckedInfo {
            snd_una,
            snd_max,
            rtt_sample_s: rtt_ms.map(|ms| ms * 1e-3),
            srtt_s: rtt_ms.map(|ms| ms * 1e-3),
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    #[test]
    fn alpha_and_beta_follow_the_queueing_delay() {
        let mut i = illinois();
        // d_m = 100 ms, d_a = 50 ms: α = 99·10/(99 + 49·9.7/0.3), β between d_2 = 10 and
        // d_3 = 80: (0.125·80 − 0.5·10 + 0.375·50)/70.
        i.update_alpha(50.0, 100.0);
        let alpha = 99.0 * 10.0 / (99.0 + 49.0 * 9.7 / 0.3);
        assert!((i.alpha - alpha).abs() < 1e-12);
        assert!(i.rtt_above);
        i.update_beta(50.0, 100.0);
        assert!((i.beta - (10.0 - 5.0 + 18.75) / 70.0).abs() < 1e-12);
        i.update_beta(5.0, 100.0);
        assert_eq!(i.beta, BETA_MIN);
        i.update_beta(90.0, 100.0);
        assert_eq!(i.beta, BETA_MAX);
        // Low delay after high: α stays until θ = 5 rounds of it.
        for _ in 0..4 {
            i.update_alpha(0.5, 100.0);
            assert!(i.alpha < 1.0);
        }
        i.update_alpha(0.5, 100.0);
        assert_eq!(i.alpha, ALPHA_MAX);
    }

    #[test]
    fn a_round_end_recomputes_from_whole_milliseconds() {
        let mut i = illinois();
        for rtt in [100.0, 150.9, 200.0] {
            i.on_pkts_acked(&ack(0, 0, 1, Some(rtt)), 20.0, 10.0);
        }
        i.on_pkts_acked(&ack(0, 0, 1, None), 20.0, 10.0);
        assert_eq!(i.cnt_rtt, 3);
        i.increase_window(&ack(5, 30, 1, None), 20.0, 10.0);
        // d_m = 100 ms, d_a = ⌊150.3 − 100⌋ = 50 ms.
        let alpha = 99.0 * 10.0 / (99.0 + 49.0 * 9.7 / 0.3);
        assert!((i.alpha - alpha).abs() < 1e-12);
        assert_eq!((i.end_seq, i.cnt_rtt, i.sum_rtt_ns), (30, 0, 0));
    }

    #[test]
    fn avoidance_adds_alpha_over_w_per_segment() {
        // α = 10 at start: at cwnd 20 an ACK of two segments counts 20, one segment more.
        let mut i = illinois();
        i.end_seq = 100;
        assert_eq!(i.increase_window(&ack(0, 0, 2, None), 20.0, 10.0), 21.0);
        i.alpha = 0.3;
        i.ack_cnt = 0;
        // 0.3 per segment, truncated each ACK: ACKs of one segment never count.
        let mut cwnd = 20.0;
        for _ in 0..100 {
            cwnd = i.increase_window(&ack(0, 0, 1, None), cwnd, 10.0);
        }
        assert_eq!(cwnd, 20.0);
        // Slow start: one segment per ACK.
        assert_eq!(i.increase_window(&ack(0, 0, 3, None), 5.0, 10.0), 6.0);
    }

    #[test]
    fn congestion_keeps_one_minus_beta_and_a_timeout_resets() {
        let mut i = illinois();
        i.beta = BETA_MIN;
        assert_eq!(i.ssthresh_after_congestion(40.0, 40), 35.0);
        i.on_state_change(CongState::Recovery, 50);
        assert_eq!(i.beta, BETA_MIN);
        i.on_state_change(CongState::Loss, 50);
        assert_eq!((i.alpha, i.beta, i.end_seq), (ALPHA_BASE, BETA_BASE, 50));
        assert_eq!(i.ssthresh_after_congestion(40.0, 40), 20.0);
        assert_eq!(i.ssthresh_after_congestion(3.0, 3), 2.0);
    }
}
